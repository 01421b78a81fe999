"""Search snippets read Markdown as plain words (issue 30, item 5), Qt-free: no ``**``, backticks,
``#`` or link syntax, code kept as its text; the hit is still found and marked in the plain text, and
a key that formatting splits in the stored text is redacted in the snippet (SEC-1)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from xworkmate.controllers import SessionController
from xworkmate.controllers.search import search_lines
from xworkmate.domain import search
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.search import markdown_plain, parse_query, snippet
from xworkmate.domain.secrets import REDACTED
from xworkmate.store import Store

REPLY = """# Deploy **plan**

Run `make deploy --fast` first, then read [the runbook](https://example.org/runbook).

- check the *blue* canary
- watch __errors__ and ~~old~~ alerts
1. roll out

> quoted **note**

| host | state |
|------|:-----:|
| web1 | ready |

```python
def keep(**kwargs):  # code: as written
    return "# not a heading"
```
"""


def test_markdown_reads_as_its_words_on_one_line() -> None:
    plain = markdown_plain(REPLY)
    assert plain == (
        "Deploy plan Run make deploy --fast first, then read the runbook. • check the blue canary"
        " • watch errors and old alerts 1. roll out quoted note host · state web1 · ready"
        ' def keep(**kwargs): # code: as written return "# not a heading"'
    )
    for syntax in ("**", "`", "](", "[the", "|", "> ", "---", "# Deploy"):
        assert syntax not in plain.replace("(**kwargs)", "").replace('"# not', "")


def test_code_spans_keep_their_text_and_plain_words_stay_as_they_are() -> None:
    assert markdown_plain("use `a*b*c` and `snake_case_name` here") == "use a*b*c and snake_case_name here"
    assert markdown_plain("snake_case_name and 2 * 3 * 4 and C:\\path") == "snake_case_name and 2 * 3 * 4 and C:\\path"
    assert markdown_plain("Setext title\n=====\n\n***bold and italic***") == "Setext title bold and italic"
    assert markdown_plain("![diagram](d.png) <https://example.org>") == "diagram https://example.org"
    assert markdown_plain("蓝色 **天空** 和 `代码`") == "蓝色 天空 和 代码"


def test_the_hit_is_found_and_marked_in_the_plain_text() -> None:
    shown = snippet(markdown_plain(REPLY), parse_query("canary"))
    assert "**" not in shown.text and "`" not in shown.text
    assert shown.marked().count("[canary]") == 1
    chinese = snippet(markdown_plain("## 计划\n\n先看 **蓝色天空** 再说"), parse_query("蓝色"))
    assert chinese.marked() == "计划 先看 [蓝色]天空 再说"


TOKEN = "glpat-Ab3dEf6hIj9kLm2nOp5qRs"


def test_a_key_split_by_formatting_is_redacted_in_the_snippet(
    sqlite_store: Store, sqlite_controller: SessionController
) -> None:
    """The stored text has the key cut by ``**`` (no key format matches a piece); its plain text has it
    whole: the snippet is redacted after the Markdown is stripped, as well as before."""
    key = sqlite_controller.lines.create_line("Deploys").thread_id
    split = f"{TOKEN[:12]}**{TOKEN[12:20]}**{TOKEN[20:]}"
    sqlite_store.messages.append(
        key, role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content=f"**Push** with {split} tonight"
    )
    sqlite_store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=f"`{TOKEN}` push")
    hits = [hit for line in search_lines(sqlite_store, "push").lines for hit in line.hits]
    assert len(hits) == 2
    for hit in hits:
        assert REDACTED in hit.snippet.text
        assert TOKEN not in hit.snippet.text and "6hIj9kLm" not in hit.snippet.text
        assert "**" not in hit.snippet.text and "`" not in hit.snippet.text
        assert "[push]" in hit.snippet.marked().lower()
    assert {(hit.role, hit.source) for hit in hits} == {("assistant", "agent"), ("user", "human")}


def _every_substitution(text: str) -> str:
    """The inline rule with every pattern applied whatever the text holds (what the fast path must equal)."""
    text = search._IMAGE_OR_LINK.sub(r"\1", text)
    text = search._AUTOLINK.sub(r"\1", text)
    for _ in range(2):
        text = search._EMPHASIS[0].sub(r"\2", text)
        for pattern in search._EMPHASIS[1:]:
            text = pattern.sub(r"\1", text)
    return search._ESCAPED.sub(r"\1", text)


_PIECES = [
    "a",
    "b c",
    "蓝",
    " ",
    "*",
    "**",
    "_",
    "__",
    "~~",
    "[",
    "]",
    "(x)",
    "!",
    "<",
    ">",
    "https:",
    "mailto:",
    "//",
    "\\",
    "`",
]


@given(st.lists(st.sampled_from(_PIECES), max_size=16).map("".join))
# Each pattern alone, its character the only one of the others' in the line (what a wrong guard would skip).
@example("see ~~old~~ now")
@example("at <https://example.org/a> or <mailto:a@b>")
@example("a [link](x) and ![alt](y)")
@example("keep \\* and \\# as written")
@example("**bold** and __strong__")
@example("*it* and _it_")
def test_a_line_is_left_as_it_is_only_when_no_inline_pattern_could_match_it(text: str) -> None:
    """Issue 34 item 2: a search's snippets skip the inline substitutions whose character a line does not hold;
    the words are the same as with every substitution made."""
    assert search._plain_words_inline(text) == _every_substitution(text)
