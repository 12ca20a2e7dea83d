"""The real Python Claude Agent SDK driving agentd (bin/agentd as `cli_path`) on its scripted model.

Run by test/e2e/python-sdk.test.ts with the venv of scripts/setup-python.mjs:

    .venv-py/bin/python test/e2e/python/scenarios.py PLAN.json

PLAN.json: {"cli_path": "...", "scenarios": {"<name>": {"cwd": "...", "env": {...}}, ...}}. The env of each
scenario (its own HOME, the scripted model's scenario file and request record) is passed to agentd through
`ClaudeAgentOptions(env=...)`, as an application would pass its settings. Every named scenario runs concurrently;
each prints exactly one JSON line, {"scenario": name, "summary": {...}} or {"scenario": name, "error": "..."},
and the TypeScript side compares whole summaries. Summaries keep what a host would look at and drop what varies
from run to run (ids, durations).
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from claude_agent_sdk import (
    AgentDefinition,
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TaskNotificationMessage,
    TaskStartedMessage,
    TextBlock,
    ThinkingBlock,
    ToolPermissionContext,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    __version__,
    create_sdk_mcp_server,
    query,
    tool,
)
from claude_agent_sdk.types import Message

# Generous: the machine running the tests may be loaded. A scenario that hangs reports an error, not a stall.
SCENARIO_TIMEOUT_S = 90


class World:
    """One scenario's workspace: cwd, environment for agentd, and the options every scenario starts from."""

    def __init__(self, cli_path: str, cwd: str, env: dict[str, str]) -> None:
        self.cli_path = cli_path
        self.cwd = cwd
        self.env = env

    def options(self, **extra: Any) -> ClaudeAgentOptions:
        return ClaudeAgentOptions(cli_path=self.cli_path, cwd=self.cwd, env=dict(self.env), **extra)


def kind(m: Message) -> str:
    """A compact name for a message: `system/init`, `assistant:text`, `user:tool_result`, `stream/message_start`…"""
    if isinstance(m, SystemMessage):
        return f"system/{m.subtype}"
    if isinstance(m, AssistantMessage):
        return "assistant:" + ",".join(block_kind(b) for b in m.content)
    if isinstance(m, UserMessage):
        if isinstance(m.content, str):
            return "user:text"
        return "user:" + ",".join(block_kind(b) for b in m.content)
    if isinstance(m, ResultMessage):
        return f"result/{m.subtype}"
    if isinstance(m, StreamEvent):
        return f"stream/{m.event.get('type')}"
    return type(m).__name__


def block_kind(b: Any) -> str:
    if isinstance(b, TextBlock):
        return "text"
    if isinstance(b, ThinkingBlock):
        return "thinking"
    if isinstance(b, ToolUseBlock):
        return "tool_use"
    if isinstance(b, ToolResultBlock):
        return "tool_result"
    return type(b).__name__


def texts(msgs: list[Message]) -> list[str]:
    """The text blocks of the assistant messages, in order."""
    return [b.text for m in msgs if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, TextBlock)]


def user_texts(msgs: list[Message]) -> list[str]:
    """The text of user messages the CLI sent back (e.g. the interrupt marker), in order."""
    out: list[str] = []
    for m in msgs:
        if isinstance(m, UserMessage):
            if isinstance(m.content, str):
                out.append(m.content)
            else:
                out.extend(b.text for b in m.content if isinstance(b, TextBlock))
    return out


def tool_results(msgs: list[Message]) -> list[list[Any]]:
    """[tool_use_id, is_error, content] of every tool result the host saw."""
    out: list[list[Any]] = []
    for m in msgs:
        if isinstance(m, UserMessage) and not isinstance(m.content, str):
            for b in m.content:
                if isinstance(b, ToolResultBlock):
                    content = b.content if isinstance(b.content, str) else json.dumps(b.content)
                    out.append([b.tool_use_id, bool(b.is_error), content])
    return out


def result_of(msgs: list[Message]) -> dict[str, Any]:
    """The fields of the final ResultMessage a host relies on (durations and ids dropped)."""
    r = msgs[-1]
    if not isinstance(r, ResultMessage):
        raise AssertionError(f"the last message is {kind(r)}, not a result")
    return {
        "subtype": r.subtype,
        "is_error": r.is_error,
        "result": r.result,
        "num_turns": r.num_turns,
        "stop_reason": r.stop_reason,
        "permission_denials": [
            {"tool_name": d.get("tool_name"), "tool_use_id": d.get("tool_use_id")} for d in (r.permission_denials or [])
        ],
    }


def session_ids(msgs: list[Message]) -> list[str]:
    """The distinct session ids the messages carry (init data, assistant, stream events, result), in order."""
    seen: list[str] = []
    for m in msgs:
        sid = None
        if isinstance(m, SystemMessage):
            sid = m.data.get("session_id")
        elif isinstance(m, (AssistantMessage, StreamEvent, ResultMessage)):
            sid = m.session_id
        if sid and sid not in seen:
            seen.append(sid)
    return seen


def files(cwd: str) -> list[str]:
    return sorted(f for f in os.listdir(cwd) if not f.startswith("."))


# --- scenarios -------------------------------------------------------------------------------------------------


async def one_shot_query(w: World) -> dict[str, Any]:
    """query() with a string prompt: the SDK writes the prompt after initialize and closes stdin at the result."""
    msgs = [m async for m in query(prompt="hello from python", options=w.options())]
    init = msgs[0]
    return {
        "kinds": [kind(m) for m in msgs],
        "texts": texts(msgs),
        "result": result_of(msgs),
        "one_session": len(session_ids(msgs)) == 1,
        "init": {
            "cwd": init.data.get("cwd") if isinstance(init, SystemMessage) else None,
            "permissionMode": init.data.get("permissionMode") if isinstance(init, SystemMessage) else None,
        },
    }


async def client_multi_turn_interrupt(w: World) -> dict[str, Any]:
    """ClaudeSDKClient: a turn, a turn interrupted once its first block has arrived, and a turn after it."""
    turns: list[list[Message]] = []
    async with ClaudeSDKClient(options=w.options()) as client:
        await client.query("first question")
        turns.append([m async for m in client.receive_response()])

        await client.query("tell me a slow story")
        interrupted: list[Message] = []
        async for m in client.receive_response():
            interrupted.append(m)
            # The scripted reply pauses for 30 s after this block: only the interrupt can end the turn soon.
            if isinstance(m, AssistantMessage):
                await client.interrupt()
        turns.append(interrupted)

        await client.query("second question")
        turns.append([m async for m in client.receive_response()])
    return {
        "turns": [
            {"kinds": [kind(m) for m in t], "texts": texts(t), "user_texts": user_texts(t), "result": result_of(t)} for t in turns
        ],
        "one_session": len(session_ids([m for t in turns for m in t])) == 1,
    }


async def can_use_tool(w: World) -> dict[str, Any]:
    """A can_use_tool callback allows one Write and denies another (one-shot query())."""
    asked: list[list[Any]] = []

    async def decide(tool_name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext):
        name = os.path.basename(str(tool_input.get("file_path")))
        asked.append([tool_name, name, ctx.tool_use_id])
        if name == "denied.txt":
            return PermissionResultDeny(message="Not that one.")
        return PermissionResultAllow(updated_input=tool_input)

    msgs = [m async for m in query(prompt="write two files", options=w.options(can_use_tool=decide))]
    return {"asked": asked, "tool_results": tool_results(msgs), "files": files(w.cwd), "texts": texts(msgs), "result": result_of(msgs)}


async def hooks(w: World) -> dict[str, Any]:
    """PreToolUse callback hooks: one blocks Bash, one allows Write (which would otherwise need permission)."""
    calls: list[list[Any]] = []

    async def block_bash(hook_input: Any, tool_use_id: str | None, _ctx: Any) -> dict[str, Any]:
        calls.append(["block_bash", hook_input["hook_event_name"], hook_input["tool_name"], tool_use_id])
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "No shell commands from this hook.",
            }
        }

    async def allow_write(hook_input: Any, tool_use_id: str | None, _ctx: Any) -> dict[str, Any]:
        calls.append(["allow_write", hook_input["hook_event_name"], hook_input["tool_name"], tool_use_id])
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "Writes are fine."}}

    options = w.options(
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[block_bash]), HookMatcher(matcher="Write", hooks=[allow_write])]}
    )
    msgs = [m async for m in query(prompt="use the tools", options=options)]
    return {"hook_calls": calls, "tool_results": tool_results(msgs), "files": files(w.cwd), "result": result_of(msgs)}


async def partial_messages(w: World) -> dict[str, Any]:
    """include_partial_messages=True: the raw stream events arrive as StreamEvent, before the assembled message."""
    msgs = [m async for m in query(prompt="stream please", options=w.options(include_partial_messages=True))]
    deltas = [
        m.event["delta"]["text"]
        for m in msgs
        if isinstance(m, StreamEvent) and m.event.get("type") == "content_block_delta" and m.event["delta"].get("type") == "text_delta"
    ]
    return {"kinds": [kind(m) for m in msgs], "deltas": deltas, "texts": texts(msgs), "one_session": len(session_ids(msgs)) == 1, "result": result_of(msgs)}


async def resume(w: World) -> dict[str, Any]:
    """A second ClaudeSDKClient resumes the first one's session by id; the model is asked with the history."""
    async with ClaudeSDKClient(options=w.options()) as first:
        await first.query("remember the word PELICAN")
        one = [m async for m in first.receive_response()]
    first_id = one[-1].session_id if isinstance(one[-1], ResultMessage) else None
    async with ClaudeSDKClient(options=w.options(resume=first_id)) as second:
        await second.query("what was the word?")
        two = [m async for m in second.receive_response()]
    return {
        "first": {"texts": texts(one), "result": result_of(one)},
        "second": {"kinds": [kind(m) for m in two], "texts": texts(two), "result": result_of(two)},
        "same_session": session_ids(two) == [first_id],
    }


async def sdk_mcp(w: World) -> dict[str, Any]:
    """An in-process MCP server (create_sdk_mcp_server + @tool): its tool is called and its answer reaches the model."""
    calls: list[list[Any]] = []

    @tool("add", "Adds two integers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        calls.append([args["a"], args["b"]])
        return {"content": [{"type": "text", "text": f"sum={args['a'] + args['b']}"}]}

    server = create_sdk_mcp_server(name="calc", version="1.0.0", tools=[add])
    options = w.options(mcp_servers={"calc": server}, allowed_tools=["mcp__calc__add"])
    msgs = [m async for m in query(prompt="add 2 and 3", options=options)]
    init = next((m.data for m in msgs if isinstance(m, SystemMessage) and m.subtype == "init"), {})
    return {
        "calls": calls,
        "mcp_servers": init.get("mcp_servers"),
        "has_tool": "mcp__calc__add" in init.get("tools", []),
        "tool_results": tool_results(msgs),
        "result": result_of(msgs),
    }


async def agent_tasks(w: World) -> dict[str, Any]:
    """A foreground and a background subagent: the task messages the SDK parses, the launch answer, and the turn the
    background agent's end starts on its own."""
    async def allow(_name: str, tool_input: dict[str, Any], _ctx: ToolPermissionContext):
        return PermissionResultAllow(updated_input=tool_input)

    options = w.options(agents={"tester": AgentDefinition(description="Tests things", prompt="You are the tester agent.", tools=["Read"])}, can_use_tool=allow)
    turns: list[list[Message]] = []
    async with ClaudeSDKClient(options=options) as client:
        await client.query("delegate twice")
        turns.append([m async for m in client.receive_response()])
        # No new prompt: the background agent's end starts the next turn.
        turns.append([m async for m in client.receive_response()])
    every = [m for t in turns for m in t]
    started = [m for m in every if isinstance(m, TaskStartedMessage)]
    ended = [m for m in every if isinstance(m, TaskNotificationMessage)]
    return {
        # The first turn's order depends on timing (the foreground agent starts while the second call streams).
        "first_turn_kinds_sorted": sorted(kind(m) for m in turns[0]),
        "second_turn": {"kinds": [kind(m) for m in turns[1]], "texts": texts(turns[1])},
        "first_turn_texts": texts(turns[0]),
        "started": [[m.tool_use_id, m.description, m.task_type, m.data.get("is_backgrounded")] for m in started],
        "ended": [[m.tool_use_id, m.status, m.summary, m.task_id == s.task_id] for m, s in zip(ended, started)],
        "launched": [r[2].startswith("Async agent launched successfully.") for r in tool_results(every) if r[0] == "toolu_bg"],
    }


SCENARIOS: dict[str, Callable[[World], Awaitable[dict[str, Any]]]] = {
    "query": one_shot_query,
    "client_interrupt": client_multi_turn_interrupt,
    "can_use_tool": can_use_tool,
    "hooks": hooks,
    "partial_messages": partial_messages,
    "resume": resume,
    "sdk_mcp": sdk_mcp,
    "agent_tasks": agent_tasks,
}


async def run_one(name: str, w: World) -> None:
    line: dict[str, Any]
    try:
        with anyio.fail_after(SCENARIO_TIMEOUT_S):
            line = {"scenario": name, "summary": await SCENARIOS[name](w)}
    except Exception as e:  # noqa: BLE001 - every failure, timeouts included, is reported as this scenario's line
        line = {"scenario": name, "error": "".join(traceback.format_exception(e))[-4000:]}
    print(json.dumps(line), flush=True)


async def main(plan_path: str) -> None:
    with open(plan_path, encoding="utf-8") as f:
        plan = json.load(f)
    unknown = sorted(set(plan["scenarios"]) - set(SCENARIOS))
    if unknown:
        raise SystemExit(f"unknown scenarios: {unknown}; known: {sorted(SCENARIOS)}")
    print(json.dumps({"sdk_version": __version__}), flush=True)
    async with anyio.create_task_group() as tg:
        for name, spec in plan["scenarios"].items():
            tg.start_soon(run_one, name, World(plan["cli_path"], spec["cwd"], spec["env"]))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: scenarios.py PLAN.json")
    anyio.run(main, sys.argv[1])
