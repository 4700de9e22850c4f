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

// TestResolverForgetsBetweenCalls holds that a Classifier's pooled resolver
// answers each call from the file system as it is then: a path that was a
// plain file (or nothing) in one call and is a symlink out of the
// workspace in the next is seen as the symlink, and the other way round.
func TestResolverForgetsBetweenCalls(t *testing.T) {
	fx := newFixture(t)
	c := fx.classifier(t, fx.config(ModeAsk))
	link := fx.ws + "/later"
	cmd := "cat later && echo x > later2"
	if v := c.Decide(cmd, fx.ws); v.Decision != Ask {
		t.Fatalf("with no file: %s (%s), want ask", v.Decision, v.Rule)
	}
	if err := os.Symlink(fx.outside+"/secret.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fx.home+"/.bashrc", link+"2"); err != nil {
		t.Fatal(err)
	}
	if v := c.Decide(cmd, fx.ws); v.Decision != Deny {
		t.Fatalf("once later2 links to ~/.bashrc: %s (%s), want deny", v.Decision, v.Rule)
	}
	if err := os.Remove(link + "2"); err != nil {
		t.Fatal(err)
	}
	if v := c.Decide("cat later", fx.ws); v.Decision == Allow {
		t.Fatalf("cat of a link out of the workspace: allow (%s)", v.Rule)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(link, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := c.Decide("cat later", fx.ws); v.Decision != Allow {
		t.Fatalf("cat of a plain file after the link is gone: %s (%s), want allow", v.Decision, v.Rule)
	}
}
