#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Print every command line that README.md, docs/*.md and xdpong(8) show a user.

README.md and docs/*.md: the lines of fenced shell code blocks.
xdpong(8) (man/xdpong.8.rst): the lines of the literal blocks of the
sections that show commands (MAN_COMMAND_SECTIONS), as rst2man shows
them. A backslash, or a pipe, at the end of a line continues it; a
comment after the command (" # ...") is dropped. One line of output per command:

    SOURCE:LINE<TAB>SECTION<TAB>COMMAND

SECTION is the heading the command stands under (README "## ..." or
"### ...", the man page's top-level heading), so a test can say which test runs a
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
        if text.endswith("|"):  # a pipe continues on the next line
            buf += text + " "
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


# The man page's sections whose literal blocks are commands; the others'
# are file contents (a drop-in, the config file, a scrape configuration).
MAN_COMMAND_SECTIONS = ("EXAMPLES", "READING THE MAPS WITH BPFTOOL", "SHARING AN INTERFACE")


def manpage(path):
    """The literal blocks of the command sections of a reStructuredText
    man page (man/xdpong.8.rst): the indented lines after a "::"."""
    lines, section, inside, prev = [], None, False, ""
    for no, text in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        if re.fullmatch(r"=+", text) and prev:
            section = prev.strip()
            if lines and lines[-1][0] == no - 1:
                lines.pop()  # the heading itself, read as a command
            inside = False
        elif section in MAN_COMMAND_SECTIONS:
            if prev.rstrip().endswith("::") and not text.strip():
                inside = True
            elif inside and text and not text[0].isspace():
                inside = False
            elif inside and text.strip():
                lines.append((no, section, text.strip()))
        prev = text
    return join_continued(lines)


def main():
    for path in sys.argv[1:]:
        pick = manpage if re.search(r"\.[1-8]\.rst$", path) else readme
        for no, section, cmd in pick(path):
            cmd = strip_comment(cmd)
            if cmd:
                print("%s:%d\t%s\t%s" % (path, no, section, cmd))


main()
