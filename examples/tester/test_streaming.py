"""A streamed reply appears in the conversation and is stored complete (SPEC §5)."""


def test_a_streamed_reply_appears(xwm_llm, xwm_window) -> None:
    driver = xwm_window.driver
    driver.new_line("Streaming")
    xwm_llm.stream(["Hello ", "from ", "the ", "model."], delay=0.2)

    driver.send("say hello")
    driver.wait_until(lambda: (driver.live_text or "").startswith("Hello from"), what="the reply to stream in")
    assert driver.live_text != "Hello from the model."  # seen while it was still arriving
    driver.wait_idle()

    *_, answer = driver.messages()
    assert (answer.role, answer.text, answer.state) == ("assistant", "Hello from the model.", "complete")
    assert driver.messages()[0].text == "say hello"
    assert driver.status_text.startswith("Runnable")
