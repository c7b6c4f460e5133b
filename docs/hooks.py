"""Build-time reference pages for the documentation site (an MkDocs hook).

A page that holds a line ``<!-- catalog: KIND -->`` gets that line replaced,
when the site is built, by Markdown generated from the installed polydat:

* ``nodes``: the node catalog, as ``polydat nodes --json`` prints it, grouped
  by category; every node is a heading with the anchor ``#<name>`` (its
  aliases get anchors of their own where no node or category has the name);
* ``fields``: the bundled field modules, as ``polydat fields`` lists them
  (``polydat.fields.fields()``, the function behind the command);
* ``cli``: every subcommand of ``polydat`` from its argument parser
  (``polydat.cli.build_parser()``): usage, description and each argument's help.

It also tidies the Python API page: the docstrings are written with Sphinx
roles, which mkdocstrings leaves as text.

So the reference pages cannot drift from the code: a new node, field module
or option is on the site at the next build.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from typing import Any

MARKER = re.compile(r"^<!-- catalog: (\w+) -->$", re.M)
SPHINX_ROLE = re.compile(r":(?:class|meth|func|attr|data|mod|exc):(?=<code>)")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replaces each catalog marker of a page with its generated Markdown."""
    return MARKER.sub(lambda m: GENERATORS[m.group(1)](), markdown)


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """Drops the Sphinx roles of the docstrings (``:class:`Program```) that
    mkdocstrings leaves in front of the name it renders as code."""
    return SPHINX_ROLE.sub("", html)


def node_catalog() -> list[dict[str, Any]]:
    """The catalog exactly as ``polydat nodes --json`` prints it."""
    done = subprocess.run(
        [sys.executable, "-m", "polydat", "nodes", "--json"], capture_output=True, text=True, check=True,
        stdin=subprocess.DEVNULL,
    )
    return json.loads(done.stdout)


def _cell(text: str) -> str:
    """``text`` made safe for one Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _params_table(node: dict[str, Any]) -> list[str]:
    if not node["params"]:
        return []
    lines = ["| parameter | kind | type | default |", "|---|---|---|---|"]
    for p in node["params"]:
        default = "" if p["default"] is None else f"`{json.dumps(p['default'])}`"
        kind = p["kind"] + (", variadic" if p["variadic"] else "")
        lines.append(f"| `{p['name']}` | {kind} | `{_cell(str(p['type']))}` | {_cell(default)} |")
    return lines + [""]


def _outputs(node: dict[str, Any]) -> str:
    outputs = node["outputs"]
    if outputs.get("kind") == "fixed":
        return ", ".join(f"`{name}: {typ}`" for name, typ in outputs["ports"])
    return f"`{json.dumps(outputs)}`"


def nodes_markdown() -> str:
    """The node reference: a section per category, a heading per node."""
    catalog = sorted(node_catalog(), key=lambda n: (n["category"], n["name"]))
    names = {n["name"] for n in catalog}
    categories = sorted({n["category"] for n in catalog})
    taken = names | {f"category-{c}" for c in categories}
    out = [f"{len(catalog)} nodes in {len(categories)} categories: "
           + ", ".join(f"[{c}](#category-{c})" for c in categories) + ".", ""]
    for category in categories:
        out += [f"## {category} {{#category-{category}}}", ""]
        for node in (n for n in catalog if n["category"] == category):
            out += [f"### {node['name']} {{#{node['name']}}}", ""]
            for alias in node["aliases"]:
                if alias not in taken:
                    taken.add(alias)
                    out.append(f'<a id="{alias}"></a>')
            out += [f"`{node['signature']}`", "", node["doc"] or "(no description)", ""]
            facts = [
                "runs natively" if node["native"] else "native code calls its rule (helper)",
                f"purity: {node['purity']}",
                "takes `None` inputs" if node["accepts_none"] else "a `None` input gives `None`",
            ]
            if node["aliases"]:
                facts.append("aliases: " + ", ".join(f"`{a}`" for a in node["aliases"]))
            out += ["*" + "; ".join(facts) + ".*", ""]
            out += _params_table(node)
            out += [f"Outputs: {_outputs(node)}.", ""]
    return "\n".join(out)


def fields_markdown() -> str:
    """The field reference: every bundled field module with its example."""
    import os

    from polydat.fields import EXAMPLE_KEY, fields, licences

    known = licences()
    out = []
    for field in fields():
        out += [f"## {field.name} {{#{field.name}}}", "", f"`{field.signature}`", ""]
        out += [field.doc.replace("\n", " ") or "(no description)", ""]
        out += [f"Example: `{field.name}({EXAMPLE_KEY})` is `{field.example}`.", ""]
        data = ", ".join(f"`{name}` ({known.get(name, '?')})" for name in field.data) or "none (computed from the key)"
        out += [f"Module file: `{os.path.basename(field.file)}`; data: {data}.", ""]
    return "\n".join(out)


def subcommands(parser: argparse.ArgumentParser) -> dict[str, tuple[argparse.ArgumentParser, str]]:
    """Each subcommand of ``parser``: its parser and its one-line help."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            return {name: (sub, helps.get(name, "")) for name, sub in action.choices.items()}
    return {}


def _argument_rows(parser: argparse.ArgumentParser) -> list[str]:
    formatter = parser._get_formatter()
    rows = ["| argument | meaning |", "|---|---|"]
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            metavar = "" if action.nargs == 0 else " " + formatter._format_args(action, action.dest.upper())
            name = ", ".join(f"`{opt}{metavar}`" for opt in action.option_strings)
        else:
            name = f"`{formatter._format_args(action, action.dest)}`"
        meaning = formatter._expand_help(action) if action.help else ""
        rows.append(f"| {_cell(name)} | {_cell(meaning)} |")
    return rows + [""]


def cli_markdown() -> str:
    """The command-line reference, from ``polydat.cli.build_parser()``."""
    from polydat.cli import build_parser

    parser = build_parser()
    out = ["```", parser.format_usage().strip(), "```", ""]
    out += _argument_rows(parser)
    for name, (sub, summary) in subcommands(parser).items():
        out += [f"## polydat {name} {{#{name}}}", "", "```", sub.format_usage().strip(), "```", ""]
        out += [sub.description or (summary[:1].upper() + summary[1:] + "."), ""]
        out += _argument_rows(sub)
    return "\n".join(out)


GENERATORS = {"nodes": nodes_markdown, "fields": fields_markdown, "cli": cli_markdown}
