# packaging.mk: what `make install` adds for other tools, included by the GNUmakefile:
#   PREFIX/share/man/man1/harness.1                     the man page, written from the built
#   PREFIX/share/bash-completion/completions/harness    binary's `harness help`, remade when
#                                                       the binary changes
HB_PKG_BUILD := $(BUILD)/packaging
HB_PKG_FROM_HELP := packaging/from-help.sh packaging/man.awk packaging/bash.awk

$(HB_PKG_BUILD)/harness.1: $(BUILD)/harness $(HB_PKG_FROM_HELP)
	@mkdir -p $(dir $@)
	packaging/from-help.sh man $(BUILD)/harness $(HB_VERSION) >$@.tmp && mv $@.tmp $@
$(HB_PKG_BUILD)/harness.bash: $(BUILD)/harness $(HB_PKG_FROM_HELP)
	@mkdir -p $(dir $@)
	packaging/from-help.sh bash $(BUILD)/harness >$@.tmp && mv $@.tmp $@

HB_PKG_FILES = $(DESTDIR)$(PREFIX)/share/man/man1/harness.1 \
               $(DESTDIR)$(PREFIX)/share/bash-completion/completions/harness

.PHONY: install-packaging uninstall-packaging
install: install-packaging
uninstall: uninstall-packaging
install-packaging: $(HB_PKG_BUILD)/harness.1 $(HB_PKG_BUILD)/harness.bash
	install -d $(dir $(HB_PKG_FILES))
	install -p -m 644 $(HB_PKG_BUILD)/harness.1 $(DESTDIR)$(PREFIX)/share/man/man1/harness.1
	install -p -m 644 $(HB_PKG_BUILD)/harness.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/harness
uninstall-packaging:
	rm -f $(HB_PKG_FILES)
