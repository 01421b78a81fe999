"""XWorkmate: a desktop workbench for AI agent tasks."""

__version__ = "0.1.0"
