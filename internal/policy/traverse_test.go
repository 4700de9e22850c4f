package policy

import (
	"fmt"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// nodeTrace lists what a walk with syntax.Walk's protocol calls f with:
// each node, and "end" where it calls f(nil). Comments are left out, as
// walkNodes leaves them out.
func nodeTrace(walk func(syntax.Node, func(syntax.Node) bool), root syntax.Node) []string {
	var out []string
	walk(root, func(n syntax.Node) bool {
		switch n := n.(type) {
		case nil:
			out = append(out, "end")
		case *syntax.Comment:
			return false
		default:
			out = append(out, fmt.Sprintf("%T@%p", n, n))
		}
		return true
	})
	return out
}

// sameWalk reports where walkNodes and syntax.Walk differ on src, if it
// parses (partially too).
func sameWalk(src string) error {
	f, err := parseBash(src)
	if err != nil {
		f = parseBashRecovering(src)
		if f == nil {
			return nil
		}
	}
	want, got := nodeTrace(syntax.Walk, f), nodeTrace(walkNodes, f)
	if len(want) != len(got) {
		return fmt.Errorf("syntax.Walk visits %d steps, walkNodes %d", len(want), len(got))
	}
	for i := range want {
		if want[i] != got[i] {
			return fmt.Errorf("step %d: syntax.Walk %s, walkNodes %s", i, want[i], got[i])
		}
	}
	return nil
}

// TestWalkNodesMatchesSyntaxWalk holds the classifier's own walk to the
// parser's: the same nodes in the same order, on every kind of node.
func TestWalkNodesMatchesSyntaxWalk(t *testing.T) {
	srcs := []string{
		hermesReadProbe,
		hermesAtomicWrite,
		"# comment\nls -la # trailing\n",
		"f() { echo $(( x + ${y:-$(id)} )) >&2; } # c\ncoproc c { cat; }",
		"for ((i=0; i<3; i++)); do echo ${a[i]/x/$(y)} ${#b} ${c:1:2} ${!d} ${e^^}; done",
		"for x in a b; do :; done; while read l; do echo \"$l\"; done < f; until false; do break; done",
		"case $x in a|b) echo 1;; *) echo 2;; esac",
		"if [[ -f a && ! -d b || ( x =~ y ) ]]; then let i++ j=2; elif (( y )); then :; else time -p ls; fi",
		"declare -A m=([k]=v [j]=$(w)); local -r z=1; export A=$(b) C",
		"cat <<EOF\n$(sudo id)\n${x}\nEOF\ncat <<< \"$(y)\"; diff <(a) >(b)",
		"echo @(a|b) !(c) +(d) *(e) ?(f)",
		"a=(1 2 $(c)) b+=x c[1]=y env",
		"echo $(( (1 + 2) * 3 ? 4 : 5 )) $[ 1 ]",
		"{ ls; } > out 2>&1 & (cd x; pwd) | tee y",
		"echo \"${x@Q}\" '${y}' $'\\n'",
	}
	for _, src := range srcs {
		if err := sameWalk(src); err != nil {
			t.Errorf("%.60q: %v", src, err)
		}
	}
}
