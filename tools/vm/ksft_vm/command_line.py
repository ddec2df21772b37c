# SPDX-License-Identifier: GPL-2.0
"""What ksft-vm-ab and ksft-vm bisect read alike: -h/--help, the words
before "--" and COMMAND after it, --seeds N; and their lines on stderr."""
import sys

from .errors import UsageError


def say(prog, text):
    """@text on stderr, after @prog's name."""
    sys.stderr.write("%s: %s\n" % (prog, text))
    sys.stderr.flush()


def split_command(argv, usage):
    """The words before "--" and COMMAND after it; UsageError when there
    is no "--" or nothing after it."""
    if "--" not in argv:
        raise UsageError("no COMMAND (%s)" % usage)
    i = argv.index("--")
    words, command = argv[:i], argv[i + 1:]
    if not command:
        raise UsageError("no COMMAND after --")
    return words, command


def seeds_value(text):
    """--seeds TEXT: a number of layout seeds, 1 to 100."""
    if not text.isdigit() or not 1 <= int(text) <= 100:
        raise UsageError("--seeds %s: a number of seeds, 1 to 100" % text)
    return int(text)


def read(argv, help_text, parse, prog):
    """main()'s first step: (None, 0) after printing @help_text for -h or
    --help, (None, 2) after saying a UsageError of @parse, else
    (parse(argv), None)."""
    if argv[:1] in (["-h"], ["--help"]):
        print(help_text)
        return None, 0
    try:
        return parse(argv), None
    except UsageError as e:
        say(prog, str(e))
        return None, 2
