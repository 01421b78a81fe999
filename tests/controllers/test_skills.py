"""Skills (SPEC §11 SKL-1, SKL-2): found in the person's and the line's folders, selected per line, and sent to
the native agent (system prompt, ``read_skill``) and to an ACP agent (resource or text blocks). Real stores, the
real scripted OpenAI-compatible server (its recorded requests are inspected) and a real scripted ACP agent.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from xworkmate.controllers import SessionController
from xworkmate.controllers.skills import UnknownSkillError
from xworkmate.domain.messages import MessageRole
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.skills import SkillOrigin
from xworkmate.testing.acp_scripts import report_events, scripted_agent
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply


def write_skill(folder: Path, name: str, description: str, body: str = "") -> Path:
    skill = folder / name
    skill.mkdir(parents=True, exist_ok=True)
    body = body or f"# {name}\nThe steps of {name}."
    text = f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"
    (skill / "SKILL.md").write_text(text)
    return skill


def line_folder(controller: SessionController, key: str) -> Path:
    return Path(controller.get_thread(key).workspace_binding.path or "")


def system_prompt(server: OpenAIServer, index: int = -1) -> str:
    [system] = [m for m in server.chat_requests[index].body["messages"] if m["role"] == "system"]
    return str(system["content"])


def test_skills_are_found_in_the_person_and_the_line_folders_with_their_origins(
    agent: SessionController, home: Path
) -> None:
    """SKL-1: the person's folder and the line's ``.agents/skills`` and ``.claude/skills``; a malformed SKILL.md
    is listed as skipped with its reason; a line-folder skill is offered on that line only."""
    write_skill(home / "skills", "pdf-forms", "Fill in PDF forms.")
    (home / "skills" / "broken").mkdir()
    (home / "skills" / "broken" / "SKILL.md").write_text("---\nname: broken\n---\nno description\n")
    line = agent.lines.create_line("A").thread_id
    other = agent.lines.create_line("B").thread_id
    write_skill(line_folder(agent, line) / ".agents" / "skills", "release-notes", "Write release notes.")
    write_skill(line_folder(agent, line) / ".claude" / "skills", "changelog", "Keep the changelog.")

    catalog = agent.skills.skill_catalog(line)
    by_name = {s.name: s for s in catalog.skills}
    assert set(by_name) == {"pdf-forms", "release-notes", "changelog"}
    assert by_name["pdf-forms"].origin is SkillOrigin.PERSON
    assert by_name["pdf-forms"].origin_path == str(home / "skills")
    assert by_name["release-notes"].origin is SkillOrigin.LINE
    assert by_name["release-notes"].origin_path == str(line_folder(agent, line) / ".agents" / "skills")
    assert by_name["changelog"].origin_path == str(line_folder(agent, line) / ".claude" / "skills")
    [skipped] = catalog.skipped
    assert skipped.folder.endswith("broken") and skipped.reason == "the front matter has no description"
    assert agent.skills.skill_catalog(other).names == ("pdf-forms",)  # the line folder's skills stay on their line
    with pytest.raises(UnknownSkillError, match="release-notes"):
        agent.skills.set_skills(other, add=["release-notes"])


def test_a_line_folder_skill_behind_a_link_out_of_the_folder_is_refused(
    agent: SessionController, home: Path, tmp_path: Path
) -> None:
    """SKL-1, SBX-2/SBX-3: the line's folder is hostile; a skill folder, a SKILL.md or the skills folder itself
    that links out is skipped with its reason, never read."""
    outside = tmp_path / "outside"
    write_skill(outside, "stolen", "Read from outside the folder.")
    (outside / "secret.md").write_text("---\nname: secret\ndescription: a file outside\n---\nTOP SECRET\n")
    line = agent.lines.create_line("A").thread_id
    skills = line_folder(agent, line) / ".agents" / "skills"
    skills.mkdir(parents=True)
    (skills / "stolen").symlink_to(outside / "stolen")
    (skills / "linked-file").mkdir()
    (skills / "linked-file" / "SKILL.md").symlink_to(outside / "secret.md")
    (skills / "hard-linked").mkdir()
    os.link(outside / "secret.md", skills / "hard-linked" / "SKILL.md")  # SBX-2: another name of a file outside
    (line_folder(agent, line) / ".claude").symlink_to(outside)  # .claude/skills leads out through .claude

    catalog = agent.skills.skill_catalog(line)
    assert catalog.names == ()
    reasons = {Path(s.folder).name: s.reason for s in catalog.skipped}
    assert "symbolic link" in reasons["stolen"]
    assert reasons["linked-file"].startswith("refused:") and "outside" in reasons["linked-file"]
    assert "outside" in reasons["skills"]  # .claude/skills
    assert reasons["hard-linked"].startswith("refused:") and "link" in reasons["hard-linked"]


def test_the_model_request_carries_the_selected_skill_and_not_an_unselected_one(
    agent: SessionController, openai_server: OpenAIServer, home: Path
) -> None:
    """SKL-2: the native agent's system prompt names and describes the selected skills only; read_skill is
    offered on such a turn and returns the skill's body; a skill not selected cannot be read."""
    write_skill(home / "skills", "pdf-forms", "Fill in PDF forms (marker 4471).", body="Step 1: open the form 9902.")
    write_skill(home / "skills", "unused", "An unselected skill (marker 5583).")
    line = agent.lines.create_line("A").thread_id
    assert agent.skills.set_skills(line, add=["pdf-forms"]).context_state.selected_skills == ("pdf-forms",)
    read = ScriptedToolCall(id="s1", name="read_skill", arguments=json.dumps({"name": "pdf-forms"}))
    other = ScriptedToolCall(id="s2", name="read_skill", arguments=json.dumps({"name": "unused"}))
    openai_server.script(ToolCallReply([read, other]), TextReply(["done"]))

    outcome = asyncio.run(agent.turns.run_turn(line, "fill the form"))
    assert outcome.status == "finished", outcome.error
    prompt = system_prompt(openai_server, 0)
    assert "pdf-forms: Fill in PDF forms (marker 4471)." in prompt
    assert "5583" not in json.dumps(openai_server.chat_requests[0].body)
    tools = [t["function"]["name"] for t in openai_server.chat_requests[0].body["tools"]]
    assert "read_skill" in tools
    results = {
        m["tool_call_id"]: m["content"] for m in openai_server.chat_requests[1].body["messages"] if m["role"] == "tool"
    }
    assert "Step 1: open the form 9902." in results["s1"]
    assert "no selected skill named 'unused'" in results["s2"] and "5583" not in results["s2"]

    agent.skills.set_skills(line, remove=["pdf-forms"])
    openai_server.script(TextReply(["ok"]))
    asyncio.run(agent.turns.run_turn(line, "again"))
    assert "4471" not in system_prompt(openai_server)
    assert "read_skill" not in [t["function"]["name"] for t in openai_server.chat_requests[-1].body["tools"]]


def test_read_skill_refuses_a_file_beside_it_that_links_out_of_the_skill(
    agent: SessionController, openai_server: OpenAIServer, home: Path, tmp_path: Path
) -> None:
    """SKL-2: read_skill reads a file beside SKILL.md, confined to the skill's folder: a link out (or ``..``)
    is refused."""
    (tmp_path / "outside.txt").write_text("OUTSIDE 3319\n")
    skill = write_skill(home / "skills", "forms", "Forms.")
    (skill / "reference.md").write_text("the reference 7781\n")
    (skill / "escape.md").symlink_to(tmp_path / "outside.txt")
    line = agent.lines.create_line("A").thread_id
    agent.skills.set_skills(line, add=["forms"])
    calls = [
        ScriptedToolCall(id="a", name="read_skill", arguments=json.dumps({"name": "forms", "path": "reference.md"})),
        ScriptedToolCall(id="b", name="read_skill", arguments=json.dumps({"name": "forms", "path": "escape.md"})),
        ScriptedToolCall(id="c", name="read_skill", arguments=json.dumps({"name": "forms", "path": "../../x"})),
    ]
    openai_server.script(ToolCallReply(calls), TextReply(["done"]))
    assert asyncio.run(agent.turns.run_turn(line, "go")).status == "finished"
    results = {
        m["tool_call_id"]: m["content"] for m in openai_server.chat_requests[1].body["messages"] if m["role"] == "tool"
    }
    assert "the reference 7781" in results["a"]
    assert "refused" in results["b"] and "3319" not in results["b"]
    assert "refused" in results["c"]


def test_a_category_lines_skill_reaches_only_a_provider_its_category_allows(
    agent: SessionController, openai_server_factory: Callable[[], OpenAIServer], openai_server: OpenAIServer
) -> None:
    """SKL-2, CAT-2: skills are content: a category line's skill goes only with its own routed requests, to a
    provider tagged for the category; the untagged default provider never sees it."""
    medical = openai_server_factory()
    agent.providers.add_provider(ProviderRecord(name="med", base_url=medical.base_url, model="m", tags=("medical",)))
    line = agent.lines.create_line("A").thread_id
    agent.tasks.set_category(line, "medical")
    write_skill(line_folder(agent, line) / ".agents" / "skills", "triage", "Triage notes (marker 6120).")
    agent.skills.set_skills(line, add=["triage"])
    plain = agent.lines.create_line("B").thread_id
    medical.script(TextReply(["ok"]))
    openai_server.script(TextReply(["ok"]))

    assert asyncio.run(agent.turns.run_turn(line, "summarise")).status == "finished"
    assert asyncio.run(agent.turns.run_turn(plain, "hello")).status == "finished"
    assert "6120" in json.dumps(medical.chat_requests[0].body)
    assert len(openai_server.chat_requests) == 1
    assert "6120" not in json.dumps(openai_server.chat_requests[0].body)


@pytest.mark.parametrize("embedded", [True, False])
def test_an_acp_prompt_carries_the_skills_as_resources_or_text(
    sqlite_controller: SessionController, tmp_path: Path, home: Path, embedded: bool
) -> None:
    """SKL-2: resource blocks (file:// URI of SKILL.md, text/markdown) when the agent advertises
    promptCapabilities.embeddedContext; otherwise one text block."""
    controller = sqlite_controller
    skill = write_skill(home / "skills", "pdf-forms", "Fill in PDF forms.", body="Body 8830.")
    write_skill(home / "skills", "unused", "Not selected (marker 1207).")
    report = scripted_agent(controller, tmp_path, embedded_context=embedded, turn=[{"say": "ok"}])
    line = controller.lines.create_line("A").thread_id
    controller.line_settings.set_execution(line, "acp", "scripted")
    controller.skills.set_skills(line, add=["pdf-forms"])
    outcome = asyncio.run(controller.turns.run_turn(line, "fill it"))
    assert outcome.status == "finished", outcome.error
    [prompt] = report_events(report, "prompt")
    blocks = prompt["blocks"]
    assert blocks[-1] == {"type": "text", "text": "fill it"}
    assert "1207" not in json.dumps(blocks)
    if embedded:
        [resource] = blocks[:-1]
        assert resource["type"] == "resource"
        assert resource["resource"]["uri"] == (skill / "SKILL.md").as_uri()
        assert resource["resource"]["mimeType"] == "text/markdown"
        assert "Body 8830." in resource["resource"]["text"] and "Fill in PDF forms." in resource["resource"]["text"]
    else:
        [text] = blocks[:-1]
        assert text["type"] == "text" and "pdf-forms" in text["text"] and "Body 8830." in text["text"]
    [assistant] = [m for m in controller.lines.messages(line) if m.role is MessageRole.ASSISTANT]
    assert assistant.content == "ok"


def test_selection_survives_reopening_and_unselecting_a_missing_skill_is_allowed(
    agent: SessionController, home: Path
) -> None:
    """SKL-1: the selection lives in the line's context_state; a skill deleted since can still be unselected."""
    skill = write_skill(home / "skills", "pdf-forms", "Fill in PDF forms.")
    line = agent.lines.create_line("A").thread_id
    agent.skills.set_skills(line, add=["pdf-forms"])
    assert agent._store.threads.get(line).context_state.selected_skills == ("pdf-forms",)  # type: ignore[union-attr]
    os.remove(skill / "SKILL.md")
    assert agent.skills.set_skills(line, remove=["pdf-forms"]).context_state.selected_skills == ()
