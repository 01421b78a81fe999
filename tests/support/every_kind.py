"""Lines of every kind the task list shows, made through the controller as a person makes them: for the tests
that compare two reads of the list (the first list, issue 19 item 7; the store's own read, issue 34 item 2)."""

from __future__ import annotations

from pathlib import Path

from xworkmate.controllers import SessionController


def lines_of_every_kind(controller: SessionController, tmp_path: Path) -> dict[str, str]:
    """A line, its task and the task's task, a fork, a category line and its task, an archived line, a line whose
    folder is gone and a line with a quoted, non-ASCII title: their keys by those names."""
    lines = {"plain": controller.lines.create_line("Plain").thread_id}
    lines["task"] = controller.tasks.start_task(lines["plain"], "a goal", context="some context").key
    lines["task of task"] = controller.tasks.start_task(lines["task"], "a smaller goal").key
    lines["fork"] = controller.tasks.fork(lines["plain"], title="Forked").thread_id
    lines["medical"] = controller.lines.create_line("Check-up notes").thread_id
    controller.tasks.set_category(lines["medical"], "medical")
    lines["medical task"] = controller.tasks.start_task(lines["medical"], "summarise the results").key
    lines["archived"] = controller.lines.create_line("Old").thread_id
    controller.lines.archive_line(lines["archived"])
    (tmp_path / "gone").mkdir()
    lines["no folder"] = controller.lines.create_line("Moved away", workspace=tmp_path / "gone").thread_id
    (tmp_path / "gone").rmdir()
    lines["quoted"] = controller.lines.create_line('it\'s "quoted" — 中文 ; DROP TABLE threads').thread_id
    return lines
