# The board's REPL on its UART, as the ESP32 port runs it after main.py.
#
# Follows shared/runtime/pyexec.c (the non-event-driven pyexec_friendly_repl
# and pyexec_raw_repl) byte for byte where host tools depend on it:
#
# - friendly REPL: banner, ">>> " prompt with echo, backspace, "... " for
#   continued lines (py/repl.c's rule), Ctrl-A raw REPL, Ctrl-B banner,
#   Ctrl-C cancel, Ctrl-D on an empty line soft reset, Ctrl-E paste mode;
# - raw REPL: "raw REPL; CTRL-B to exit\r\n>", code up to Ctrl-D, then "OK",
#   the output, "\x04", the exception text, "\x04", ">"; Ctrl-D on an empty
#   line answers "OK\r\n" and soft-resets; Ctrl-B back to friendly;
# - raw-paste mode: "\x05A\x01" answers "R\x01", the window (128, two bytes
#   little-endian) and "\x01"; each further window is granted with "\x01";
#   Ctrl-D ends the code ("\x04" back), then the output as in the raw REPL.
#
# Code runs in __main__'s globals (those main.py ran in), with Ctrl-C enabled.
# Not done: auto-indent, history, cursor movement, tab completion.

import sys
from micropython import const

import _vb_core as core

_CTRL_A = const(1)
_CTRL_B = const(2)
_CTRL_C = const(3)
_CTRL_D = const(4)
_CTRL_E = const(5)
FORCED_EXIT = const(0x100)  # pyexec's PYEXEC_FORCED_EXIT: the caller soft-resets
_PASTE_WINDOW = const(128)  # MICROPY_REPL_STDIN_BUFFER_MAX (256) / 2

write = core.console_write
read = core.console_read


def _write_str(text):
    write(text.encode())


def machine_name():
    return core.config.get("machine") or "Generic ESP32 module with ESP32"


def banner():
    v = sys.implementation.version
    date = sys.version.rsplit(" on ", 1)[-1] if " on " in sys.version else ""
    _write_str(
        'MicroPython v%d.%d.%d on %s; %s\r\nType "help()" for more information.\r\n'
        % (v[0], v[1], v[2], date, machine_name())
    )


def execute(source, mode, print_eof, env):
    """parse_compile_execute(): returns 0, 1 (an exception was printed) or
    FORCED_EXIT (SystemExit: the caller soft-resets)."""
    ret = 0
    try:
        code = compile(bytes(source).decode(), "<stdin>", mode)
        core.set_interrupt_char(_CTRL_C)
        exec(code, env)
        if core.kbd_pending:  # mp_handle_pending() after the code: a late Ctrl-C
            core.set_interrupt_char(-1)
            raise KeyboardInterrupt
        core.set_interrupt_char(-1)
        if print_eof:
            write(b"\x04")
    except BaseException as e:
        core.set_interrupt_char(-1)
        if core.host_gone:
            raise
        if print_eof:
            write(b"\x04")
        if isinstance(e, SystemExit):
            ret = FORCED_EXIT
        else:
            core.print_exception(e)
            ret = 1
    if print_eof:
        write(b"\x04")
    return ret


# ---------------------------------------------------------------- friendly REPL


def readline(line, prompt):
    """shared/readline: echo, backspace; returns 0 at Enter (line complete), or
    the control character that ended it (Ctrl-A..E on an empty line, Ctrl-C)."""
    write(prompt)
    start = len(line)
    while True:
        c = read()
        if _CTRL_A <= c <= _CTRL_E and len(line) == start:
            return c
        if c == _CTRL_C:
            return c
        if c == 13:
            write(b"\r\n")
            return 0
        if c == 27:
            _skip_escape()
        elif c == 8 or c == 127:
            if len(line) > start:
                line[len(line) - 1 :] = b""
                write(b"\b\x1b[K")
        elif 32 <= c <= 126 or c >= 128:
            line.append(c)
            write(bytes((c,)))


def _skip_escape():
    # Cursor keys and the like: ESC [ params final, or ESC O x. Not supported: dropped.
    c = read()
    if c == 79:  # "O"
        read()
    elif c == 91:  # "["
        while True:
            c = read()
            if 0x40 <= c <= 0x7E:
                return


def _text(line):
    try:
        return bytes(line).decode()
    except UnicodeError:
        return ""


_COMPOUND = ("if", "while", "for", "try", "with", "def", "class", "async")


def continue_with_input(text):
    """py/repl.c mp_repl_continue_with_input()."""
    if not text:
        return False
    compound = _starts_compound(text)
    depth, quote = _open_at_end(text)
    if quote is not None and len(quote) == 3:
        return True
    if depth > 0 and quote is None:
        return True
    if text[-1] == "\\":
        return True
    return compound and text[-1] != "\n"


def _starts_compound(text):
    """The text starts a compound statement (if, def, ... or a decorator)."""
    first = text.split(None, 1)[0] if text.strip() else ""
    for kw in _COMPOUND:
        if first == kw or first.startswith(kw + "(") or first.startswith(kw + ":"):
            return True
    return text[0] == "@"


def _open_at_end(text):
    """(the brackets left open, the quote left open or None) at the end of the text
    (comments skipped)."""
    depth = 0
    quote = None  # "'", '"', "'''", '"""'
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if quote is None:
            if ch == "#":
                while i < n and text[i] != "\n":
                    i += 1
                continue
            if ch in "'\"":
                if text[i : i + 3] == ch * 3:
                    quote = ch * 3
                    i += 3
                    continue
                quote = ch
            elif ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
        elif ch == "\\":
            i += 1
        elif text[i : i + len(quote)] == quote:
            i += len(quote)
            quote = None
            continue
        elif ch == "\n" and len(quote) == 1:
            quote = None
        i += 1
    return depth, quote


def friendly_repl(env, show_banner=True):
    if show_banner:
        banner()
    while True:
        line = bytearray()
        ret = readline(line, b">>> ")
        mode = "single"
        if ret == _CTRL_A:
            write(b"\r\n")
            core.set_repl_mode("raw")
            return 0
        if ret == _CTRL_B:
            write(b"\r\n")
            banner()
            continue
        if ret == _CTRL_C:
            write(b"\r\n")
            continue
        if ret == _CTRL_D:
            write(b"\r\n")
            return FORCED_EXIT
        if ret == _CTRL_E:
            line = _paste_mode()
            if line is None:
                continue
            mode = "exec"
        elif not line:
            continue
        else:
            cancelled = False
            while continue_with_input(_text(line)):
                line.append(10)
                ret = readline(line, b"... ")
                if ret == _CTRL_C:
                    write(b"\r\n")
                    cancelled = True
                    break
                if ret == _CTRL_D:
                    break
            if cancelled:
                continue
        ret = execute(line, mode, False, env)
        if ret & FORCED_EXIT:
            return ret


def _paste_mode():
    write(b"\r\npaste mode; Ctrl-C to cancel, Ctrl-D to finish\r\n=== ")
    line = bytearray()
    while True:
        c = read()
        if c == _CTRL_C:
            write(b"\r\n")
            return None
        if c == _CTRL_D:
            write(b"\r\n")
            return line
        line.append(c)
        if c == 13:
            write(b"\r\n=== ")
        else:
            write(bytes((c,)))


# ---------------------------------------------------------------- raw REPL


def raw_repl(env):
    write(b"raw REPL; CTRL-B to exit\r\n")
    while True:
        line = bytearray()
        write(b">")
        while True:
            c = read()
            if c == _CTRL_A:
                if len(line) == 2 and line[0] == _CTRL_E:
                    ret = _raw_paste(line[1], env)
                    if ret & FORCED_EXIT:
                        return ret
                    line = bytearray()
                    write(b">")
                    continue
                write(b"raw REPL; CTRL-B to exit\r\n")
                line = bytearray()
                write(b">")
            elif c == _CTRL_B:
                write(b"\r\n")
                core.set_repl_mode("friendly")
                return 0
            elif c == _CTRL_C:
                line = bytearray()
            elif c == _CTRL_D:
                break
            else:
                line.append(c)
        write(b"OK")
        if not line:
            write(b"\r\n")
            return FORCED_EXIT
        ret = execute(line, "exec", True, env)
        if ret & FORCED_EXIT:
            return ret


def _raw_paste(command, env):
    """do_reader_stdin(): raw-paste mode with flow control."""
    if command != 65:  # "A"
        write(b"R\x00")
        return 0
    write(b"R\x01")
    write(bytes((_PASTE_WINDOW & 0xFF, _PASTE_WINDOW >> 8, 1)))
    remain = _PASTE_WINDOW
    source = bytearray()
    while True:
        c = read()
        if c == _CTRL_C or c == _CTRL_D:
            write(b"\x04")  # end of data acknowledged
            break
        source.append(c)
        remain -= 1
        if remain == 0:
            write(b"\x01")  # another window may be sent
            remain = _PASTE_WINDOW
    if c == _CTRL_C:
        # The reader raises KeyboardInterrupt (without a traceback) while the
        # code is being read: the two EOFs frame the exception text.
        write(b"\x04KeyboardInterrupt: \r\n\x04")
        return 1
    return execute(source, "exec", True, env)


def input(prompt=""):
    """builtins.input as the ESP32's (mp_builtin_input): readline with echo;
    Ctrl-C raises KeyboardInterrupt, Ctrl-D on an empty line EOFError. It waits
    in idle(): timers run and time passes while the user types."""
    line = bytearray()
    ret = readline(line, str(prompt).encode())
    if ret == _CTRL_C:
        raise KeyboardInterrupt
    if ret == _CTRL_D and not line:
        raise EOFError
    return _text(line)


def run(env, show_banner=True):
    """The REPL loop of the port's main(): friendly or raw REPL (the mode
    survives a soft reset) until one asks for a soft reset."""
    first = True
    while True:
        if core.repl_mode == "raw":
            ret = raw_repl(env)
        else:
            ret = friendly_repl(env, show_banner or not first)
        first = False
        if ret & FORCED_EXIT:
            return ret
