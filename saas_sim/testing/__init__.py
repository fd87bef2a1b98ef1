"""Test helpers shipped with saas_sim: an OpenAI-compatible stub model server and oracle-playing policies."""
