"""XWorkmate for testers: a pytest plugin, real test servers and a window driver (issue 21).

Installed with ``pip install 'xworkmate[testing]'``; pytest then loads :mod:`xworkmate.testing.plugin`
through the ``pytest11`` entry point. This package imports nothing at import time (the scripted ACP
agent runs as ``python -m xworkmate.testing.acp_agent`` and must start fast, with no Qt); import
the parts you need: ``openai_server`` (a real OpenAI-compatible server), ``acp_agent`` (a scripted
ACP agent process), ``llm`` (the ``xwm_llm`` scripting layer), ``driver`` (``WindowDriver``).
See docs/testing.md.
"""
