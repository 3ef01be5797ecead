"""The worker's classical models: pure compute (parsed params + a DataFrame in, plain dicts out) that the
job handlers call. Heavy libraries are imported by the modules here, not by the handlers' import."""
