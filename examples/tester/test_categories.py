"""A category line never reaches an untagged model (CAT-2): the request is refused before any HTTP."""


def test_a_category_line_never_reaches_an_untagged_model(xwm_llm, xwm_window) -> None:
    driver = xwm_window.driver
    key = driver.new_line("Clinic")
    driver.set_category(key, "medical")
    xwm_llm.reply("I should never be asked.")

    driver.send("my test results")
    driver.wait_idle()

    assert xwm_llm.chat_requests == []  # the only provider has no "medical" tag
    assert any(line.key == key and line.category == "medical" for line in driver.lines())
    assert driver.messages()[0].text == "my test results"  # the person's words are kept (ERR-2)
