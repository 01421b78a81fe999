"""Pure rules and pydantic models. Imports nothing of ours and no Qt (SPEC §1)."""
