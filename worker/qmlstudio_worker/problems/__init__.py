"""What is specific to one problem type, one package per problem file (``schemas/problems/<id>.json``,
the id's dashes as underscores). Each package's ``handler`` module defines ``run(params, ctx) -> dict``;
generic techniques live in ``ml`` and ``quantum``, which never import from here."""
