# zsh_capture.zsh FPATH_DIR OUT LINE: what zsh's completion system offers
# for LINE followed by TAB, one candidate per line. Runs an interactive zsh
# on a pseudo-terminal (zsh/zpty) with compinit and FPATH_DIR on $fpath, and
# wraps compadd so that every candidate is also written to OUT.
zmodload zsh/zpty || exit 1
dir=$1 out=$2 line=$3
: > $out
zpty capture zsh -f -i
zpty -w capture "PS1=''; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w capture "compadd() { local -a hits; builtin compadd -O hits \"\$@\"; (( \$#hits )) && print -rl -- \$hits >> ${(q)out}; builtin compadd \"\$@\"; }"
zpty -w -n capture "$line"$'\t'
# Candidates arrive within milliseconds; none at all is waited out.
for i in {1..30}; do
  [[ -s $out ]] && break
  sleep 0.1
done
sleep 0.2
zpty -d capture
cat $out
