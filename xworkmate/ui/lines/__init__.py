"""The task lines in the window: the left pane's list, which line needs you, notifications, worktree lines,
the search palette and a line's export (SPEC §6, LOOP-2, LOOP-3). Modules are imported where used; this
package imports nothing, so the start's first list (``first_list``) costs no more than its own module."""
