"""An approval card is answered: "ask" permission, the agent wants to write, the tester allows it (WR-1)."""

from pathlib import Path


def test_an_approval_card_is_answered(xwm_llm, xwm_window) -> None:
    driver = xwm_window.driver
    driver.new_line("Approvals")
    xwm_llm.tool_call("write_file", path="hello.txt", content="hi!\n", quote="create hello.txt containing")
    xwm_llm.reply("Done.")

    driver.send("Please create hello.txt containing a friendly greeting")
    driver.approve()
    driver.wait_idle()

    assert Path(driver.workspace_path, "hello.txt").read_text() == "hi!\n"
    assert driver.messages()[-1].text == "Done."
    assert driver.approval_cards() == []
