"""Drives the built re-mcp server with the official Python MCP SDK client (issue: every client).

Usage: python_client.py CASES_JSON WORKSPACE SERVER_ENTRY [EXTRA_ENV_JSON]
Prints one JSON report on stdout; the node test (real-clients.test.ts) asserts on it.
"""
import json
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    cases = json.loads(open(sys.argv[1], encoding="utf-8").read())
    workspace, entry = sys.argv[2], sys.argv[3]
    extra = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
    params = StdioServerParameters(
        command="node", args=[entry, "serve"], env={"RE_MCP_WORKSPACE_ROOT": workspace, "RE_MCP_PROFILE": "full", "PATH": "/usr/bin:/bin:/usr/local/bin", **extra}
    )
    report = {"tools": [], "cases": [], "progress": [], "cancelled": None, "after_cancel": None}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            report["tools"] = [t.name for t in listed.tools]
            for name in report["tools"]:
                # An unknown argument: an error result for every tool, through the SDK's own checks.
                r = await session.call_tool(name, {"zz_unknown": 1})
                meta = (r.meta or {}).get("re-mcp/error") or {}
                report["cases"].append({"tool": name, "isError": r.is_error, "text": r.content[0].text, "code": meta.get("code")})
            for case in cases:
                r = await session.call_tool(case["tool"], case["args"])
                meta = (r.meta or {}).get("re-mcp/error") or {}
                report["cases"].append(
                    {"tool": case["tool"], "isError": bool(r.is_error), "text": r.content[0].text, "code": meta.get("code"),
                     "structured": r.structured_content is not None, "expect": case.get("code")}
                )

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                report["progress"].append([progress, total])

            r = await session.call_tool("verify_file_sha256", {"path": "big.bin"}, progress_callback=on_progress)
            report["progress_result_error"] = bool(r.is_error)
            progress_before = len(report["progress"])
            # Cancellation: leaving the scope cancels the request (the SDK sends notifications/cancelled).
            with anyio.move_on_after(0.3) as scope:
                await session.call_tool("verify_file_sha256", {"path": "big.bin"}, progress_callback=on_progress)
            report["cancelled"] = scope.cancelled_caught
            report["progress_during_cancelled"] = len(report["progress"]) - progress_before
            r = await session.call_tool("server_capabilities", {})
            report["after_cancel"] = not r.is_error
    print(json.dumps(report))


anyio.run(main)
