package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRealJoin holds realJoin, which looks a joined path up without
// joining it, to real of the joined path, over the same sequence of
// lookups (the resolver's answers may depend on what the call looked at
// before).
func TestRealJoin(t *testing.T) {
	fx := newFixture(t)
	if err := os.Symlink(fx.home+"/.bashrc", fx.ws+"/rc"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nonexistent/dir", fx.ws+"/dangling"); err != nil {
		t.Fatal(err)
	}
	steps := []struct{ dir, p string }{
		{fx.ws, "sub/g.txt"}, {fx.ws, "sub/g.txt"}, {fx.ws + "/sub", "g.txt"}, {fx.ws, "missing"},
		{fx.ws, "missing/../rc"}, {fx.ws, "deep/../g.txt"}, {fx.ws + "/deep", "../../f.txt"},
		{fx.ws, "dangling/x"}, {fx.ws, "out/secret.txt"}, {fx.ws, fx.ws + "/rc"}, {fx.ws + "/sub", ".//./g.txt"},
		{fx.ws + "/nope/nope", "x"}, {"/", "tmp"},
	}
	joined, direct := newResolver(OS{}), newResolver(OS{})
	for _, st := range steps {
		got, gotOK := joined.realJoin(st.dir, st.p)
		want, wantOK := direct.real(joinPath(st.dir, st.p))
		if got != want || gotOK != wantOK {
			t.Errorf("realJoin(%s, %s) = %s %v, real of the joined path %s %v", st.dir, st.p, got, gotOK, want, wantOK)
		}
	}
}

func TestCleanPath(t *testing.T) {
	for _, p := range []string{
		"", "/", "//", "/a", "/a/", "/a/.", "/a/..", "/.", "/..", "a", "./a", "a/../b", "/a//b",
		"/a/./b", "/a/../b", "/...", "/a/.b", "/a/b.", "/a/..b", "/a/b/c.txt", "/a/b/../../..",
	} {
		if got, want := cleanPath(p), filepath.Clean(p); got != want {
			t.Errorf("cleanPath(%q) = %q, want %q", p, got, want)
		}
	}
}
