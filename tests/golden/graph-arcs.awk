# Reads a gprof-style call graph (gprof or symprof) and prints, separated
# by tabs:
#   K NAME                   for every function with an entry
#   A PARENT CHILD CALLED    for every caller and callee line of an entry
#   C NAME N                 for every name printed with " <cycle N>"
# CALLED is the "called" column as printed ("0/0", "1000/1000", or the
# bare count of a call within a cycle); " <cycle N>" and " [index]" are
# dropped from names, which may hold blanks (demangled C++).
# (an arc printed both as a callee and as a caller line comes out twice)
# Drops the index and the cycle tag; a cycle tag sets `cycle' (else "").
function strip(l) {
	sub(/ [[(][0-9]+[])]$/, "", l)
	cycle = ""
	if (match(l, / <cycle [0-9]+>$/)) {
		cycle = substr(l, RSTART + 8, RLENGTH - 9)
		l = substr(l, 1, RSTART - 1)
	}
	return l
}
function print_cycle(n) {
	if (cycle != "")
		print "C", n, cycle
}
BEGIN { OFS = "\t" }
/^Index by function name/ { exit }
# One caller or callee line: sets `name' and `called'.
function arc_line(l) {
	l = strip(l)
	sub(/^ +([0-9.]+ +[0-9.]+ +)?/, "", l)
	called = l
	sub(/ .*/, "", called)
	sub(/^[0-9]+([/+][0-9]+)? +/, "", l)
	name = l
	print_cycle(name)
}
/^-+$/ { primary = ""; nparents = 0; next }
/^\[[0-9]+\]/ {
	line = strip($0)
	sub(/^\[[0-9]+\] +[0-9.]+ +[0-9.]+ +[0-9.]+( +[0-9]+(\+[0-9]+)?)? +/, "", line)
	primary = line
	if (line ~ /^<cycle [0-9]+ as a whole>$/)
		next
	print "K", line
	print_cycle(line)
	for (i = 1; i <= nparents; i++) {
		arc_line(parents[i])
		print "A", name, primary, called
	}
	next
}
primary == "" && /[[(][0-9]+[])]$/ { parents[++nparents] = $0; next }
# the members of a cycle, listed under its entry
primary ~ /^<cycle/ && /[[(][0-9]+[])]$/ { arc_line($0); next }
primary != "" && /[[(][0-9]+[])]$/ {
	arc_line($0)
	print "A", primary, name, called
}
