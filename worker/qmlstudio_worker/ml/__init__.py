"""Classical machine learning, generic over problems (this package imports neither ``quantum``, ``jobs``
nor ``problems``): preprocessing, windows, datasets, metrics and baselines, classical models and saved
artifacts. Pure compute (parsed params + a DataFrame in, plain dicts out) that the job handlers call;
heavy libraries are imported by the modules here, not by the handlers' import."""
