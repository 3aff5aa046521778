/* SPDX-License-Identifier: MIT */
/* code_object.h: the kernels a GPU code object file defines (code_object.c), read without any
 * GPU API, and the symbol a manifest's entry as written (`ns::gemm<16>`) names among them, for
 * backends that load modules by symbol (HIP's hipModuleGetFunction). Needs libstdc++'s
 * demangler at link time. */
#ifndef HB_CODE_OBJECT_H
#define HB_CODE_OBJECT_H

#include <stddef.h>

/* Kernel symbols, mangled as the compiler emitted them, NUL-separated. */
struct co_list {
    int n;
    size_t used;
    char names[16384];
};

/* The kernels of the file at path: an ELF code object (NVIDIA cubin, AMD code object), a clang
 * offload bundle of them (hipcc --genco), or an nvcc fatbin's uncompressed cubins. 0 (the list
 * may be empty: nothing readable), or -1 with err when the file cannot be read. */
int co_kernels(const char *path, struct co_list *l, char *err, size_t errlen);

/* The symbol whose demangled name is entry, compared as entry_name.h does (template arguments'
 * spelling, parameter lists and return types aside), into symbol: 1. Not found: 0, symbol is
 * entry itself and held lists the kernels there are (readable, comma-separated). */
int co_find(const struct co_list *l, const char *entry, char *symbol, size_t len, char *held, size_t heldlen);

#endif
