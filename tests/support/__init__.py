"""Test support: a real OpenAI-compatible HTTP server and its pytest fixtures."""
