"""Drives `svc mcp` with the official MCP Python SDK (PyPI's `mcp`), as an agent would.

Reads its plan as JSON on stdin: {"svc": the binary, "env": {name: value} for `svc mcp` (the
SDK adds PATH and a few others of its own), "sessions": [{"flags": [...], "calls":
[[tool, arguments], ...]}, ...]}. Prints one JSON summary on stdout for tests/mcp/sdk.rs.

The SDK checks what it can: the initialize answer and its protocol version, every message's
shape, and on each successful tools/call the structured content against the tool's
outputSchema (it raises otherwise, which fails the run). On top of that, as a careful agent
would: every tool's inputSchema and outputSchema must be valid JSON Schema, each call's
arguments are checked against the inputSchema (the answer says whether they passed), and an
error result's structured content, which the SDK leaves unchecked, against the outputSchema.
"""

import asyncio
import importlib.metadata
import json
import sys
from datetime import timedelta

import jsonschema
import mcp.types
from mcp import ClientSession, McpError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS

PLAN = json.load(sys.stdin)
NEWEST = mcp.types.LATEST_PROTOCOL_VERSION


def server(flags):
    return StdioServerParameters(command=PLAN["svc"], args=["mcp", *flags], env=PLAN["env"])


def schema_errors(schema):
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
        return None
    except jsonschema.SchemaError as e:
        return e.message


def instance_errors(instance, schema):
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [e.message for e in validator.iter_errors(instance)]


async def call(session, tools, name, arguments):
    tool = tools.get(name)
    out = {"tool": name}
    if tool is not None:
        out["inputErrors"] = instance_errors(arguments, tool.inputSchema)
    try:
        result = await session.call_tool(name, arguments)
    except McpError as e:
        out["rpcError"] = {"code": e.error.code, "message": e.error.message}
        return out
    out["isError"] = bool(result.isError)
    out["structured"] = result.structuredContent
    out["contentTypes"] = [block.type for block in result.content]
    texts = [block.text for block in result.content if block.type == "text"]
    out["text"] = json.loads(texts[0]) if texts else None
    if result.isError and tool is not None and tool.outputSchema is not None:
        out["outputErrors"] = instance_errors(result.structuredContent, tool.outputSchema)
    return out


async def run_session(flags, calls):
    async with stdio_client(server(flags)) as (read, write):
        # A bound on each answer, so that a server that stops answering fails the run.
        async with ClientSession(read, write, read_timeout_seconds=timedelta(seconds=60)) as s:
            init = await s.initialize()
            tools = {t.name: t for t in (await s.list_tools()).tools}
            errors = {}
            for tool in tools.values():
                for kind, schema in (("input", tool.inputSchema), ("output", tool.outputSchema)):
                    if schema is None:
                        errors[f"{tool.name} {kind}"] = "missing"
                    elif (error := schema_errors(schema)) is not None:
                        errors[f"{tool.name} {kind}"] = error
            return {
                "protocolVersion": init.protocolVersion,
                "serverInfo": {"name": init.serverInfo.name, "version": init.serverInfo.version},
                "tools": list(tools),
                "schemaErrors": errors,
                "calls": [await call(s, tools, name, args) for name, args in calls],
            }


async def negotiate(version):
    """The protocol version svc answers to a client asking for `version`."""
    # The SDK always asks for its newest version; an older client is one asking for another.
    mcp.types.LATEST_PROTOCOL_VERSION = version
    try:
        async with stdio_client(server([])) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=timedelta(seconds=60)) as s:
                return (await s.initialize()).protocolVersion
    finally:
        mcp.types.LATEST_PROTOCOL_VERSION = NEWEST


async def main():
    negotiated = {v: await negotiate(v) for v in SUPPORTED_PROTOCOL_VERSIONS}
    sessions = [await run_session(s["flags"], s["calls"]) for s in PLAN["sessions"]]
    summary = {
        "sdk": importlib.metadata.version("mcp"),
        "negotiated": negotiated,
        "sessions": sessions,
    }
    print(json.dumps(summary))


asyncio.run(main())
