"""``benchsmith agent list|demo-script|run``: RepoClassBench's RRR agent and its baselines."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchsmith.cli.options import add_executor_options, executor_of, limits
from benchsmith.generation.models import add_backend_arguments  # argparse only: no backend module is imported


def _agent_run(args: argparse.Namespace) -> int:
    from benchsmith.generation.candidates.agent_run import AgentRunOptions, run_agent, transcripts_path
    from benchsmith.generation.models import backend_from_args, format_usage

    backend = backend_from_args(args)
    summary = run_agent(
        args.dataset,
        backend,
        args.out,
        AgentRunOptions(
            agent=args.agent,
            description=args.description,
            max_calls=args.max_calls,
            tool_format=args.tool_format,
            no_relatives=args.no_relatives,
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            limits=limits(args),
            workers=args.workers,
        ),
        executor_of(args),
    )
    print(
        f"{args.out}: {summary.candidates} candidates for {summary.tasks} tasks by {args.agent} ({summary.resumed} "
        f"from an interrupted run, {summary.passed} passing the oracle, {summary.no_code} answers without code; "
        f"{summary.tool_format} tool calls) in {summary.seconds:.1f}s; transcripts in {transcripts_path(args.out)}"
    )
    usage = summary.usage
    print(
        f"the transcripts' tokens (resumed steps included): {usage.prompt_tokens} prompt + {usage.completion_tokens} "
        f"completion" + (f", cost ${usage.cost_usd:.4f}" if backend.priced else ""),
        file=sys.stderr,
    )
    print(format_usage(backend), file=sys.stderr)
    return 0


def _agent_demo_script(args: argparse.Namespace) -> int:
    from benchsmith.generation.candidates.agent_demo import demo_script

    tasks = demo_script(args.dataset, args.out, args.description, args.max_calls)
    print(
        f"{args.out}: a scripted RRR demonstration for {tasks} tasks (an attempt that fails, two tool calls, "
        "a reflection, the gold); run it with `agent run --agent rrr --backend scripted --script`"
    )
    return 0


def _agent_list(args: argparse.Namespace) -> int:
    from benchsmith.generation.agents import agents

    for name, entry in agents().items():
        print(f"{name:<10} {entry.help}")
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    agent = commands.add_parser(
        "agent", help="RepoClassBench's RRR agent and its baselines: agents that write candidates"
    )
    agent_commands = agent.add_subparsers(dest="agent_command", required=True)
    agent_list = agent_commands.add_parser("list", help="the registered agents")
    agent_list.set_defaults(handler=_agent_list)
    agent_demo = agent_commands.add_parser(
        "demo-script",
        help="a scripted-backend script that walks RRR through every "
        "phase on a dataset without a model (the gold as the second attempt)",
    )
    agent_demo.add_argument("--dataset", type=Path, required=True)
    agent_demo.add_argument("--description", choices=["detailed", "sketchy"])
    agent_demo.add_argument("--max-calls", type=int, default=5, help="as agent run's: how many rounds to script")
    agent_demo.add_argument("--out", type=Path, required=True, help="the script (JSON Lines)")
    agent_demo.set_defaults(handler=_agent_demo_script)
    agent_run = agent_commands.add_parser("run", help="run an agent on every task of a dataset → candidates JSONL")
    agent_run.add_argument("--agent", required=True, help="basic, naive-rag, repocoder, reflexion, rrr (`agent list`)")
    agent_run.add_argument("--dataset", type=Path, required=True)
    agent_run.add_argument(
        "--description", choices=["detailed", "sketchy"], help="which description the agent gets (default detailed)"
    )
    agent_run.add_argument(
        "--max-calls",
        type=int,
        default=5,
        help="oracle calls (attempts judged) of reflexion and rrr, generations of repocoder (default 5)",
    )
    agent_run.add_argument(
        "--tool-format",
        choices=["auto", "openai", "text"],
        default="auto",
        help="how the model calls tools: the OpenAI tools API, the paper's Thought/Action text, or "
        "auto: the API where the backend offers it, text when the endpoint refuses tools",
    )
    agent_run.add_argument(
        "--no-relatives",
        action="store_true",
        help="leave each task's relatives out of the tools' view (RepoClassBench's RQ2)",
    )
    agent_run.add_argument("--temperature", type=float, default=0.2, help="the paper: 0.2")
    agent_run.add_argument("--max-tokens", type=int, help="cap on each answer's length")
    agent_run.add_argument("--timeout", type=float, default=120.0, help="wall-clock seconds per oracle run")
    agent_run.add_argument(
        "--workers", type=int, default=1, help="tasks worked at once, each with an oracle of its own (default 1)"
    )
    add_executor_options(agent_run)
    add_backend_arguments(agent_run)
    agent_run.add_argument("--out", type=Path, required=True, help="candidates JSONL (transcripts go beside it)")
    agent_run.set_defaults(handler=_agent_run)
