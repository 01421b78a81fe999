"""Issue 31 item 3 on the command line, as real processes: `xworkmate task send` to a task whose turn runs
in another process (here: this test's controller, as the window would) queues the follow-up, and
`xworkmate queue list|edit|move|remove` see and change the same queue; bad input is one line (ERR-1).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from tests.controllers.conftest import scripted_controller
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import HangReply, OpenAIServer


def test_task_send_to_a_task_running_elsewhere_queues_and_the_queue_commands_change_it(
    home: Path, settings: Settings, sqlite_store: Store, openai_server: OpenAIServer
) -> None:
    controller = scripted_controller(sqlite_store, settings, openai_server)
    line = controller.lines.create_line("A")
    task = controller.tasks.start_task(line.thread_id, "tidy the folder")
    openai_server.script(HangReply(chunks=["tidying "]))

    async def scenario() -> None:
        turn = controller.turns.start_turn(task.key, None)
        async with asyncio.timeout(10):
            while not openai_server.chat_requests:
                await asyncio.sleep(0.01)
        controller.external.flush()  # its run status, written for the other processes
        sent = run_cli(home, "task", "send", task.key, "keep README.md")
        assert sent.returncode == 0, sent.stderr
        assert sent.stdout.startswith(f"queued as follow-up 1 on {task.key}")
        second = ok_json(home, "task", "send", task.key, "and the LICENSE")
        assert (second["delivery"], second["queued"], second["message_id"]) == ("queued", 2, None)
        ok_json(home, "task", "send", task.key, "and a typo")
        controller.turns.stop(task.key)
        await asyncio.gather(turn, return_exceptions=True)

    asyncio.run(asyncio.wait_for(scenario(), 60))
    key = task.key

    def listed() -> list[str]:
        return [item["text"] for item in ok_json(home, "queue", "list", key)]

    assert listed() == ["keep README.md", "and the LICENSE", "and a typo"]
    assert [i.text for i in controller.queue.items(key)] == listed()  # the window's queue, the same rows
    assert not [m for m in controller.lines.messages(key) if m.content == "keep README.md"]  # queued, not a message

    shown = run_cli(home, "queue", "list", key)
    assert shown.stdout.splitlines() == ["1. keep README.md", "2. and the LICENSE", "3. and a typo"]
    assert ok_json(home, "queue", "edit", key, "2", "and the LICENSE file")["text"] == "and the LICENSE file"
    moved = ok_json(home, "queue", "move", key, "3", "1")
    assert [item["text"] for item in moved] == ["and a typo", "keep README.md", "and the LICENSE file"]
    removed = run_cli(home, "queue", "remove", key, "1")
    assert removed.returncode == 0 and removed.stdout.strip() == "removed 1. and a typo"
    assert listed() == ["keep README.md", "and the LICENSE file"]

    assert_one_line_error(run_cli(home, "queue", "remove", key, "5"), f"line {key} has no queued item 5")
    assert_one_line_error(run_cli(home, "queue", "move", key, "1", "x"), "POS must be a queue position")
    assert_one_line_error(run_cli(home, "queue", "edit", key, "1", "  "), "the follow-up is empty")
    assert_one_line_error(run_cli(home, "queue", "list", "draft:nope"), "draft:nope")
    empty = controller.lines.create_line("B").thread_id
    assert run_cli(home, "queue", "list", empty).stdout.strip() == f"no queued follow-ups on {empty}"
    assert json.loads(run_cli(home, "queue", "list", empty, "--json").stdout) == []
    assert listed() == ["keep README.md", "and the LICENSE file"]  # refusals changed nothing
