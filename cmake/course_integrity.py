#!/usr/bin/env python3
"""The integrity check of a student's compiled objects (the lessonNN/<flavour>/integrity rows).

    course_integrity.py --lesson NN --nm NM --objdump OBJDUMP --what TEXT [--expect-denied]
                        OBJECT_OR_ARCHIVE...

The student's code runs inside the process that grades it, so what that code can reach is held
to an allowlist (cmake/course_integrity_rules.py, the one place of every lesson's list):

- every symbol an object references must be on the lesson's list;
- every global symbol it defines must be its own: a kernel, or a function, variable or type in
  the lesson's namespace (course::lessonNN), or code the headers emit (templates, inline
  functions), so that no definition can replace a library's function in the test's process;
- its host code contains no system call, time-stamp counter or processor query.

Exits 0 when everything is allowed, 1 naming each refused symbol (with --expect-denied, a
mutant's check: 0 when something is refused, 1 when nothing is), 2 when it cannot run.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import course_integrity_rules as rules  # noqa: E402

UNDEFINED = set("Uwv")
WEAK = set("WVui")
# nm's types of global definitions (lowercase ones are local to the object, except the weak and
# unique ones above).
GLOBAL_DEFINED = set("TDBRGSCVWuiA")

PREFIXES = ("typeinfo name for ", "typeinfo for ", "vtable for ", "VTT for ",
            "construction vtable for ", "guard variable for ", "non-virtual thunk to ",
            "virtual thunk to ", "covariant return thunk to ", "reference temporary #0 for ")


def outer_name(demangled):
    """The qualified name of a demangled symbol, without its return type, its template
    arguments' insides and its parameters: 'void course::lesson05::run<float>(int)' ->
    'course::lesson05::run<>'. A prefix such as 'vtable for ' is kept."""
    prefix = ""
    for p in PREFIXES:
        if demangled.startswith(p):
            prefix, demangled = p, demangled[len(p):]
            break
    demangled = demangled.replace("(anonymous namespace)", "{anonymous namespace}")
    out, depth, braces = [], 0, 0
    for ch in demangled:
        if ch in "{}":
            braces += 1 if ch == "{" else -1
        elif braces == 0 and ch == "<":
            depth += 1
            if depth == 1:
                out.append("<")
            continue
        elif braces == 0 and ch == ">":
            depth -= 1
            if depth == 0:
                out.append(">")
            continue
        if depth > 0:
            continue
        if ch == "(" and braces == 0 and not "".join(out).endswith("operator"):
            break
        out.append(ch)
    name = "".join(out).strip()
    # Drop a return type: the last space outside brackets separates it from the name.
    cut = -1
    depth = 0
    for i, ch in enumerate(name):
        if ch in "<({":
            depth += 1
        elif ch in ">)}":
            depth -= 1
        elif ch == " " and depth == 0 and not name[:i].endswith(("operator", "unsigned", "long",
                                                                  "signed", "short")):
            cut = i
    if cut >= 0 and not name.startswith("operator"):
        name = name[cut + 1:]
    return prefix + name.replace("{anonymous namespace}", "(anonymous namespace)")


def symbols(nm, path):
    """(type, demangled name, raw name) of every symbol of an object or archive."""
    def run(args):
        result = subprocess.run([nm, *args, path], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{nm} {' '.join(args)} {path} failed: {result.stderr.strip()}")
        return result.stdout.splitlines()

    raw = run(["-p"])
    demangled = run(["-p", "-C"])
    if len(raw) != len(demangled):
        raise RuntimeError(f"{nm} listed {path} two ways with different lengths")
    found = []
    for line, readable in zip(raw, demangled):
        match = re.match(r"^[0-9a-fA-F ]*\s([A-Za-z?-])\s(.+)$", line)
        readable_match = re.match(r"^[0-9a-fA-F ]*\s([A-Za-z?-])\s(.+)$", readable)
        if not match or not readable_match:
            continue
        found.append((match.group(1), readable_match.group(2), match.group(2)))
    return found


def why_refused(name):
    for pattern, why in rules.REASONS:
        if re.search(pattern, name):
            return why
    return "not on the lesson's allowlist"


def check_reference(name, lesson):
    """None when the object may reference @p name, else why not."""
    own = f"course::lesson{lesson}::"
    for pattern, why in rules.LESSON_DENIED.get(lesson, []):
        if re.search(pattern, name):
            return why
    allowed = rules.COMMON_REFERENCES + rules.LESSON_REFERENCES.get(lesson, [])
    if any(re.match(pattern, name) for pattern in allowed):
        return None
    # The lesson's own given code, whatever the return type in front of it.
    if outer_name(name).startswith(own) or name.startswith(own):
        return None
    return why_refused(name)


def check_definition(kind, name, raw, lesson):
    """None when the object may define @p name (nm type @p kind), else why not."""
    own = f"course::lesson{lesson}::"
    outer = outer_name(name)
    bare = outer
    for p in PREFIXES:
        if bare.startswith(p):
            bare = bare[len(p):]
    if bare.startswith(own):
        return None
    # nvcc's host stub of a kernel in the lesson's namespace.
    if name.startswith(f"__device_stub__ZN6course8lesson{lesson}"):
        return None
    if kind in WEAK:
        if any(re.match(pattern, name) for pattern in rules.INLINE_NON_TEMPLATES):
            return None
        if re.match(rules.HEADER_NAMESPACES, bare) and "<" in bare:
            return None  # a template's instance, emitted where it is used
        if re.match(rules.HEADER_NAMESPACES, bare) and name.startswith("guard variable for "):
            return None
    what = "a C library or CUDA runtime function" if not raw.startswith("_Z") else "not its own"
    return (f"defines it ({what}): a student object may define only its kernels and the "
            f"functions of namespace course::lesson{lesson}")


def host_instructions(objdump, path):
    """(instruction, why) of each refused instruction in the host code of @p path."""
    result = subprocess.run([objdump, "-d", "--no-show-raw-insn", path], capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{objdump} -d {path} failed: {result.stderr.strip()}")
    found = []
    for line in result.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) < 2 or not re.match(r"^\s*[0-9a-f]+:$", parts[0]):
            continue
        instruction = " ".join(parts[1:]).strip()
        for pattern, why in rules.HOST_INSTRUCTIONS:
            if re.search(pattern, instruction):
                found.append((instruction, why))
    return found


def check(files, lesson, nm, objdump):
    """Every refusal in @p files: (file, what, symbol, why)."""
    refused = []
    for path in files:
        for kind, name, raw in symbols(nm, path):
            if kind in UNDEFINED:
                why = check_reference(name, lesson)
                if why:
                    refused.append((path, "uses", name, why))
            elif kind in GLOBAL_DEFINED:
                why = check_definition(kind, name, raw, lesson)
                if why:
                    refused.append((path, "defines", name, why))
        if objdump:
            for instruction, why in host_instructions(objdump, path):
                refused.append((path, "contains the instruction", instruction,
                                f"{why}, in host code"))
    return refused


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lesson", required=True, help="the lesson's number, e.g. 02")
    parser.add_argument("--nm", default="nm")
    parser.add_argument("--objdump", default="objdump", help="empty: skip the instruction check")
    parser.add_argument("--what", default="the objects")
    parser.add_argument("--expect-denied", action="store_true")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"\d\d", args.lesson):
        parser.error("--lesson takes two digits, e.g. 02")
    files = [f for arg in args.files for f in arg.split("|") if f]
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        print(f"[course] integrity: {args.what}: no such object: {', '.join(missing)} "
              "(did it build?)")
        return 1
    try:
        refused = check(files, args.lesson, args.nm, args.objdump)
    except (OSError, RuntimeError) as error:
        print(f"[course] integrity: cannot check {args.what}: {error}")
        return 2
    seen = set()
    for path, what, name, why in refused:
        if (what, name) in seen:
            continue
        seen.add((what, name))
        print(f"[course] integrity: {os.path.basename(path)} {what} {name}: {why}")
    if args.expect_denied:
        if refused:
            print(f"[course] integrity: rejected, as expected: {args.what} use what they may not")
            return 0
        print(f"[course] integrity: not rejected: {args.what} use nothing the check refuses")
        return 1
    if refused:
        print(f"[course] integrity: FAILED: {args.what} use or define what a student's code may "
              "not (the lesson README's \"What your code may use\" says what is allowed); the "
              "lesson's exercise and stretch points are withheld")
        return 1
    print(f"[course] integrity: {args.what} use and define only what the lesson allows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
