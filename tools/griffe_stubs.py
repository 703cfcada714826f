"""A griffe extension for the API reference (mkdocs.yml): members declared only
in the type stubs join the classes they document.

memview's classes are Python classes over C base types (ArrayBase, BufferBase,
...): attributes such as Array.shape are C getters, so they exist in the .pyi
stubs and nowhere in the Python sources. griffe merges stubs into the sources,
but for a class re-exported from a private module (memview.Array is
memview._array.Array) it keeps only the members the source class has. This
extension reads the stubs once more and adds each missing member, so that the
reference shows what the stubs declare, still without importing the extension.
"""
from __future__ import annotations

from pathlib import Path

import griffe


class StubMembers(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:
        if pkg.name != "memview":
            return
        root = Path(pkg.filepath).parent
        for stub in sorted(root.glob("*.pyi")):
            modname = "memview" if stub.stem == "__init__" else f"memview.{stub.stem}"
            stubs = griffe.visit(modname, filepath=stub, code=stub.read_text())
            module = pkg if modname == "memview" else pkg.get_member(stub.stem)
            for name, member in stubs.members.items():
                if member.is_alias or not member.is_class or name not in module.members:
                    continue
                target = module.get_member(name)
                if target.is_alias:
                    target = target.final_target
                for mname, m in member.members.items():
                    if mname not in target.members:
                        m.runtime = False
                        target.set_member(mname, m)
