"""`--help` for the tools that take plain words rather than options: the
script's docstring, printed before anything is built or booted."""
import sys


def help_exit(doc):
    """Print doc and exit 0 when -h or --help is among the arguments."""
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        print(doc.strip())
        sys.exit(0)
