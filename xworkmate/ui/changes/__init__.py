"""The right pane: the line's folder and preview, and the Changes tab with its diffs (SPEC §6, ISO-3,
LOOP-1). This package imports nothing: the Changes tab's code loads after the window is usable."""
