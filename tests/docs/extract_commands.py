#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Print every command line that README.md, docs/*.md and xdpong(8) show a user.

README.md: the lines of fenced code blocks. xdpong(8): the lines of the
.nf/.fi blocks of EXAMPLES, unescaped as groff would show them. A
backslash at the end of a line continues it; a comment after the command
(" # ...") is dropped. One line of output per command:

    SOURCE:LINE<TAB>SECTION<TAB>COMMAND

SECTION is the heading the command stands under (README "## ..." or
"### ...", the man page's .SH), so a test can say which test runs a
whole section's commands.

Blocks that are not commands (program output, a C snippet) are skipped by
the test that reads this, not here: this only extracts.
"""
import re
import sys


def join_continued(lines):
    """(lineno, section, text) with backslash-continued lines joined."""
    out, buf, start = [], "", None
    for no, sec, text in lines:
        if start is None:
            start = no
        if text.endswith("\\"):
            buf += text[:-1].rstrip() + " "
            continue
        out.append((start, sec, (buf + text).strip()))
        buf, start = "", None
    if buf:
        out.append((start, sec, buf.strip()))
    return out


def strip_comment(cmd):
    """Drop a trailing ' # comment' that is outside quotes."""
    quote = None
    for i, c in enumerate(cmd):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or cmd[i - 1] in " \t"):
            return cmd[:i].rstrip()
    return cmd


def readme(path):
    lines, inside, skip, section = [], False, False, ""
    for no, text in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        if text.startswith("```"):
            # Shell blocks only: a fence with no language or sh/shell/
            # console; ini and others are file contents, not commands.
            if inside:
                inside, skip = False, False
            else:
                inside = True
                skip = text[3:].strip() not in ("", "sh", "shell", "bash", "console")
            continue
        if inside and skip:
            continue
        if inside:
            lines.append((no, section, text))
        elif text.startswith("## ") or text.startswith("### "):
            section = text.lstrip("#").strip()
    return join_continued(lines)


GROFF = [(r"\(aq", "'"), (r"\(dq", '"'), (r"\-", "-"), (r"\e", "\\"), (r"\&", "")]


def manpage(path):
    lines, section, inside = [], None, False
    for no, text in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        if text.startswith(".SH "):
            section = text[4:].strip()
            continue
        if section != "EXAMPLES":
            continue
        if text == ".nf":
            inside = True
            continue
        if text == ".fi":
            inside = False
            continue
        if inside and not text.startswith("."):
            for a, b in GROFF:
                text = text.replace(a, b)
            lines.append((no, section, text))
    return join_continued(lines)


def main():
    for path in sys.argv[1:]:
        pick = manpage if re.search(r"\.[1-8]$", path) else readme
        for no, section, cmd in pick(path):
            cmd = strip_comment(cmd)
            if cmd:
                print("%s:%d\t%s\t%s" % (path, no, section, cmd))


main()
