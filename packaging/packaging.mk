# SPDX-License-Identifier: MIT
# packaging.mk: what `make install` adds for other tools, included by the GNUmakefile:
#   PREFIX/share/man/man1/harness.1                     the man page  } written from the built
#   PREFIX/share/bash-completion/completions/harness    completion    } binary's `harness help`
#   PREFIX/lib/cmake/gpu-harness/gpu-harnessConfig{,Version}.cmake    find_package(gpu-harness)
#   PREFIX/share/pkgconfig/gpu-harness.pc               the binary's path and the version
# The man page and completion are build products (remade when the binary changes); the files
# naming PREFIX are written at install time, as PREFIX is install's.
HB_PKG_BUILD := $(BUILD)/packaging
HB_PKG_FROM_HELP := packaging/from-help.sh packaging/man.awk packaging/bash.awk

$(HB_PKG_BUILD)/harness.1: $(BUILD)/harness $(HB_PKG_FROM_HELP)
	@mkdir -p $(dir $@)
	packaging/from-help.sh man $(BUILD)/harness $(HB_VERSION) >$@.tmp && mv $@.tmp $@
$(HB_PKG_BUILD)/harness.bash: $(BUILD)/harness $(HB_PKG_FROM_HELP)
	@mkdir -p $(dir $@)
	packaging/from-help.sh bash $(BUILD)/harness >$@.tmp && mv $@.tmp $@

HB_CMAKEDIR = $(DESTDIR)$(PREFIX)/lib/cmake/gpu-harness
HB_PKG_FILES = $(DESTDIR)$(PREFIX)/share/man/man1/harness.1 \
               $(DESTDIR)$(PREFIX)/share/bash-completion/completions/harness \
               $(DESTDIR)$(PREFIX)/share/pkgconfig/gpu-harness.pc

.PHONY: install-packaging uninstall-packaging
install: install-packaging
uninstall: uninstall-packaging
install-packaging: $(HB_PKG_BUILD)/harness.1 $(HB_PKG_BUILD)/harness.bash
	install -d $(HB_CMAKEDIR) $(dir $(HB_PKG_FILES))
	install -p -m 644 $(HB_PKG_BUILD)/harness.1 $(DESTDIR)$(PREFIX)/share/man/man1/harness.1
	install -p -m 644 $(HB_PKG_BUILD)/harness.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/harness
	install -p -m 644 packaging/gpu-harnessConfig.cmake $(HB_CMAKEDIR)/gpu-harnessConfig.cmake
	sed 's|@HB_VERSION@|$(HB_VERSION)|g' packaging/gpu-harnessConfigVersion.cmake.in \
	    >$(HB_CMAKEDIR)/gpu-harnessConfigVersion.cmake
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@HB_VERSION@|$(HB_VERSION)|g' packaging/gpu-harness.pc.in \
	    >$(DESTDIR)$(PREFIX)/share/pkgconfig/gpu-harness.pc
uninstall-packaging:
	rm -f $(HB_PKG_FILES)
	rm -rf $(HB_CMAKEDIR)
