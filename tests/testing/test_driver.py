"""WindowDriver's verbs on the real window with the plugin's fixtures (issue 21).

Each verb is checked against what the window then shows and what the servers saw; the example
tests in examples/tester cover new_line, select, bind, send, approve, set_category.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")  # the Qt-free core job runs without the gui extra

from xworkmate.testing.driver import WindowDriver


def test_a_refused_request_shows_in_the_status_line_and_the_message_is_kept(xwm_llm: Any, xwm_window: Any) -> None:
    driver: WindowDriver = xwm_window.driver
    driver.new_line("Failing")
    xwm_llm.fail(400, {"error": {"message": "the model refuses"}})

    driver.send("hello?")
    driver.wait_idle()

    assert "the model refuses" in driver.status_text
    assert driver.messages()[0].text == "hello?"
    assert len(xwm_llm.chat_requests) == 1


def test_stop_keeps_the_partial_answer_marked_interrupted(xwm_llm: Any, xwm_window: Any) -> None:
    driver: WindowDriver = xwm_window.driver
    driver.new_line("Stopping")
    xwm_llm.stream(["Part one. ", "part two ", "never"], delay=0.3)

    driver.send("tell me slowly")
    driver.wait_until(lambda: (driver.live_text or "").startswith("Part one."), what="the first chunk")
    driver.stop()
    driver.wait_idle()

    answer = next(m for m in driver.messages() if m.role == "assistant")
    assert answer.state == "interrupted" and answer.text.startswith("Part one.")
    assert "never" not in answer.text
    assert driver.live_text is None


def test_stop_right_after_send_ends_the_turn(xwm_llm: Any, xwm_window: Any) -> None:
    """Stop before the turn's first step used to leave the line "Running" for good."""
    driver: WindowDriver = xwm_window.driver
    driver.new_line("Quick stop")
    xwm_llm.stream(["a ", "b"], delay=0.3)

    driver.send("never mind")
    driver.stop()
    driver.wait_idle(timeout=5)

    assert driver.status_text.startswith("Runnable")
    assert driver.messages()[0].text == "never mind"  # the person's words are kept (ERR-2)
    assert driver.widget("sendButton").isEnabled() is False  # the composer is empty again


def test_reject_refuses_the_write(xwm_llm: Any, xwm_window: Any) -> None:
    driver: WindowDriver = xwm_window.driver
    driver.new_line("Rejecting")
    xwm_llm.tool_call("write_file", path="no.txt", content="x\n", quote="write no.txt")
    xwm_llm.reply("Understood.")

    driver.send("please write no.txt")
    driver.reject()
    driver.wait_idle()

    assert not Path(driver.workspace_path or "", "no.txt").exists()
    assert driver.messages()[-1].text == "Understood."
    tool_result = xwm_llm.chat_requests[-1].body["messages"][-1]
    assert tool_result["role"] == "tool" and "reject" in tool_result["content"].lower()


def test_the_scripted_acp_agent_answers_a_line_switched_to_it(xwm_acp_agent: Any, xwm_window: Any) -> None:
    driver: WindowDriver = xwm_window.driver
    key = driver.new_line("Agent")
    driver.set_mode(f"{xwm_acp_agent.name} (ACP)")
    xwm_acp_agent.stream(["Hello ", "human."], delay=0.05)

    driver.send("hello agent")
    driver.wait_idle()

    assert [(m.role, m.text) for m in driver.messages(key)] == [("user", "hello agent"), ("assistant", "Hello human.")]
    assert [r["text"] for r in xwm_acp_agent.requests] == ["hello agent"]


def test_lines_and_current_key_follow_the_list(xwm_window: Any) -> None:
    driver: WindowDriver = xwm_window.driver
    assert driver.current_key == "main" and [line.key for line in driver.lines()] == ["main"]
    key = driver.new_line("Second")
    assert driver.current_key == key
    assert {line.key: line.title for line in driver.lines()}[key] == "Second"
    driver.select("main")
    assert driver.current_key == "main"
    with pytest.raises(AssertionError, match="not in the task line list"):
        driver.select("draft:nope")
