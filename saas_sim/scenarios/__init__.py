"""Scenario files: models, loading, templating and reference agents."""
