"""The agent in the window: the line's ACP session controls, the execution-mode and skill pickers,
approval and elicitation cards, sign-in, and what running turns are doing (SPEC §5, §6, §11). This package
imports nothing; its modules are imported where used."""
