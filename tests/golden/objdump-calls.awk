# Reads `objdump -d [-r] --no-show-raw-insn' and prints "caller callee" for
# every call (with precise=1: and every jump) from a known function to a
# known function. Variables (awk -v):
#   known     graph-arcs.awk output of the graph: its K lines are the names
#   nmfile    "address name" of every symbol (aliases: one table symbol
#             stands for every name at its address)
#   slotfile  "address name" of the GOT slots (calls through memory)
#   localfile "name offset" of PowerPC64 local entry points (<name+0x8>)
#   rel       1 for an object file: only .text, callees from relocations
#   precise   1 to count jumps to another function's entry too
#   a64       1 for AArch64: an unconditional `b' to an entry counts as a
#             call even without precise (gprof's scan takes B and BL)
function canon(n,    b) {
	if (n in is_known) return n
	if ((n in addr_of) && (addr_of[n] in known_at)) return known_at[addr_of[n]]
	# --precise folds gcc's clones (f.constprop.0, f.cold ...) into the
	# function they were cloned from, whose name the graph prints
	if (precise) {
		b = n
		while (sub(/\.(constprop|isra|part|cold|lto_priv)(\.[0-9]+)?$/, "", b))
			if (b in is_known) return b
	}
	return ""
}
function emit(callee) {
	if (callee == "" || (callee = canon(callee)) == "") return
	if (pend_jump && callee == fn) return
	print fn, callee
}
function flush() {
	if (pending) emit(pend_callee)
	pending = 0
}
BEGIN {
	FS = "\t"
	# functions with an entry or an arc
	while ((getline l < known) > 0) {
		n = split(l, f, "\t")
		for (i = 2; i <= n && i <= 3; i++) is_known[f[i]] = 1
	}
	# gprof keeps these out of the graph, but code under their label is
	# still theirs, not the function before them
	split("_gprof_mcount mcount _mcount __mcount __mcount_internal __mcleanup", ex, " ")
	for (i in ex) excluded[ex[i]] = 1
	while ((getline l < nmfile) > 0) {
		split(l, f, " ")
		a = f[1]; sub(/^0+/, "", a)
		if (f[2] in addr_of && addr_of[f[2]] != a) addr_of[f[2]] = "?"
		else addr_of[f[2]] = a
		if (f[2] in is_known) known_at[a] = f[2]
	}
	while ((getline l < slotfile) > 0) {
		split(l, f, " ")
		slot[f[1]] = f[2]
	}
	while ((getline l < localfile) > 0) {
		split(l, f, " ")
		localentry[f[1] "+0x" sprintf("%x", f[2])] = f[1]
	}
}
# A call belongs to the last known function before it, whatever the
# section (gprof's ranges run to the next symbol of its table: code at the
# start of .text before its first known function is _init's); import
# stubs are nobody's. In an object file every section starts at 0: a
# section's code before its first known function is nobody's.
/^Disassembly of section/ {
	flush()
	if (rel) fn = ""
	skip = (rel && $0 !~ /section \.text:$/) || $0 ~ /section \.(plt|plt\.sec|plt\.got|iplt):$/
	next
}
skip { next }
/^[0-9a-f]+ <.*>:$/ {
	flush()
	name = $0; sub(/^[0-9a-f]+ </, "", name); sub(/>:$/, "", name)
	if (name in excluded) fn = name
	else if (canon(name) != "") fn = canon(name)
	next
}
fn == "" { next }
# a relocation of the instruction before: it names the callee
/^\t+ *[0-9a-f]+: R_/ {
	if (pending && pend_mem == ($0 ~ /GOTPCREL/)) {
		r = $0; sub(/^.*R_[A-Z0-9_]+[ \t]+/, "", r); sub(/[-+]0x[0-9a-f]+$/, "", r)
		pend_callee = r ~ /^\./ ? "" : r
	}
	flush()
	next
}
{
	flush()
	if (NF < 2) next
	insn = $2
	for (i = 3; i <= NF; i++) insn = insn " " $i
	sub(/^(bnd|notrack|data16) +/, "", insn)
	split(insn, w, " ")
	m = w[1]
	is_call = (m == "call" || m == "callq" || m == "bl" || m == "blx" || (a64 && m == "b"))
	is_jump = (m ~ /^(jmp|jmpq|j[a-z]+|b|b\.[a-z]+|cbn?z|tbn?z|b[a-z][a-z])$/)
	if (!is_call && !(precise && is_jump)) next
	pending = 1; pend_jump = !is_call; pend_mem = 0; pend_callee = ""
	if (insn ~ /^[a-z]+ +\*/) {
		pend_mem = 1
		if (match(insn, /# [0-9a-f]+ <[^>]*>$/)) {
			a = substr(insn, RSTART + 2); sub(/ .*/, "", a); sub(/^0+/, "", a)
			if (a in slot) pend_callee = slot[a]
		}
	} else if (match(insn, /<[^>+]*>$/)) {
		pend_callee = substr(insn, RSTART + 1, RLENGTH - 2)
		sub(/@plt$/, "", pend_callee)
	} else if (match(insn, /<[^>]*>$/) && (substr(insn, RSTART + 1, RLENGTH - 2) in localentry)) {
		pend_callee = localentry[substr(insn, RSTART + 1, RLENGTH - 2)]
	}
	if (!rel) flush()
}
END { flush() }
