"""Whether a trainvp binary is an AddressSanitizer build (scripts/test_sanitizers.sh): the
Python-driven tests skip what only measures memory or repeats a path many times there."""


def sanitized(binary):
    """True when BINARY links AddressSanitizer.  Read in small pieces: a forked child starts
    with the caller's resident memory, which its ru_maxrss would count."""
    tail = b""
    with open(binary, "rb") as f:
        while True:
            piece = f.read(1 << 16)
            if not piece:
                return False
            if b"__asan_init" in tail + piece:
                return True
            tail = piece[-16:]
