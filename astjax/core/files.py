"""Writing generated files: atomically (temporary file + rename), so no reader sees half a file."""
import os
import tempfile


def write_atomic(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_if_changed(path: str, text: str) -> None:
    """Write atomically unless the file already holds exactly `text` (a corrupt or stale
    generated file is rewritten, an intact one is left alone for the caches that key on it)."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    write_atomic(path, text)


def cache_root() -> str:
    """Where generated modules live: $ASTJAX_CACHE_DIR, else ~/.cache/astjax."""
    root = os.environ.get("ASTJAX_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "astjax")
    return root
