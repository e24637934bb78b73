#!/usr/bin/env python3
"""Checks what libhsadispatch.so exports: the public API and nothing of the internals.

Usage: check_exports.py LIBRARY INCLUDE_DIR...

Every defined dynamic symbol must be a member of a class, or a free function, that the public
headers (INCLUDE_DIR/hsad/*.hpp) mark HSAD_API, or its typeinfo or vtable; the only others allowed
are weak instantiations of the standard library's templates (a program makes its own). Every
class marked HSAD_API must export something, hsad::version() and the typeinfo of hsad::Error (so
that a program catches it) must be there. Exits 1, listing what is wrong."""
import glob, re, subprocess, sys

INTERNAL = {"detail", "cpu", "cuda", "rocr", "aql", "sim", "isa", "host_kernels"}


def public_names(include_dir):
    names = set()
    for path in glob.glob(include_dir + "/hsad/*.hpp"):
        text = open(path).read()
        names.update(re.findall(r"^(?:class|struct) HSAD_API (\w+)", text, re.M))
        names.update(re.findall(r"^HSAD_API [^;(]*?\b(\w+)\(", text, re.M))
    return names


def last_token(qualifier):
    """The qualified name without its return type: the last space-separated token outside <>."""
    depth, start = 0, 0
    for i, c in enumerate(qualifier):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == " " and depth == 0 and not qualifier[i + 1:].startswith("const"):
            start = i + 1
    return qualifier[start:]


def main():
    lib = sys.argv[1]
    public = set()
    for include_dir in sys.argv[2:]:
        public |= public_names(include_dir)
    nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    demangled = subprocess.run(["c++filt"], input=nm, capture_output=True, text=True, check=True).stdout
    wrong, seen = [], set()
    for line in demangled.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3:
            continue
        kind, symbol = parts[1], parts[2].split("@")[0]
        if symbol in ("HSAD_0",):
            continue
        special = re.match(r"(typeinfo name for|typeinfo for|vtable for) (.*)", symbol)
        qualified = special.group(2) if special else last_token(symbol.split("(")[0])
        pieces = qualified.split("::")
        if pieces[0] in ("std", "__gnu_cxx") and kind in "WVuv":
            continue  # a standard template's weak instantiation
        if pieces[0] != "hsad" or len(pieces) < 2:
            wrong.append("not the public API: " + symbol)
            continue
        owner = re.sub(r"[<\[].*", "", pieces[1])
        if owner in INTERNAL or owner not in public:
            wrong.append("an internal symbol: " + symbol)
            continue
        seen.add(owner)
        seen.add(symbol)
    missing = sorted(n for n in public if n not in seen and n[0].isupper())
    # Plain structs with only inline members export nothing: only classes with code must appear.
    needed = {"Runtime", "Device", "Queue", "Submission", "Batch", "Buffer", "Kernel", "Module", "Error", "Options"}
    for name in sorted(needed & set(missing)):
        wrong.append("exports nothing of hsad::" + name)
    if not any(s.startswith("hsad::version()") for s in seen):
        wrong.append("hsad::version() is not exported")
    if "typeinfo for hsad::Error" not in seen:
        wrong.append("typeinfo for hsad::Error is not exported: programs could not catch it")
    for w in wrong:
        print(w)
    print(f"{len(seen)} names checked, {len(wrong)} wrong")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
