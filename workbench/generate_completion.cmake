# Included by workbench/CMakeLists.txt: runs the built kernel-bench to write
# its completion scripts and man page under ${CMAKE_CURRENT_BINARY_DIR}/share
# (as they install; KB_GENERATED_SHARE_DIR), and installs them.
set(share ${CMAKE_CURRENT_BINARY_DIR}/share)
set(KB_GENERATED_SHARE_DIR ${share})
set(bash_script ${share}/bash-completion/completions/kernel-bench)
set(zsh_script ${share}/zsh/site-functions/_kernel-bench)
set(fish_script ${share}/fish/vendor_completions.d/kernel-bench.fish)
set(man_page ${share}/man/man1/kernel-bench.1)
# `COMMAND kernel-bench` names the target: CMake runs the built file
# (through CMAKE_CROSSCOMPILING_EMULATOR when set), and DEPENDS on it reruns
# this after every relink.
add_custom_command(
  OUTPUT ${bash_script} ${zsh_script} ${fish_script} ${man_page}
  COMMAND kernel-bench completion bash -o ${bash_script}
  COMMAND kernel-bench completion zsh -o ${zsh_script}
  COMMAND kernel-bench completion fish -o ${fish_script}
  COMMAND kernel-bench man -o ${man_page}
  DEPENDS kernel-bench
  COMMENT "Generating kernel-bench's shell completion and man page"
  VERBATIM)
add_custom_target(kernel-bench-completion ALL
  DEPENDS ${bash_script} ${zsh_script} ${fish_script} ${man_page})
install(FILES ${bash_script}
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${zsh_script}
  DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
install(FILES ${fish_script}
  DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
install(FILES ${man_page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
