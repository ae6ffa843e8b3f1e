package theme

import (
	"strings"
	"testing"
)

// FuzzParseSpec: any path a client sends is refused, or is a theme that
// spells itself the same; the stylesheet of one without problems holds
// nothing that could end a CSS string or rule early, nor markup.
func FuzzParseSpec(f *testing.F) {
	f.Add("3557d6-ffffff-1d2330-system-soft-start")
	f.Add("0b5d1e-fffdf5-1a1a1a-dejavu-round-center-adatum-0123456789ab.png")
	f.Add(`3557d6-ffffff-1d2330-system-soft-start-x.png");}body{background:red`)
	f.Add("777777-ffffff-777777-mono-square-hidden")
	f.Fuzz(func(t *testing.T, spec string) {
		th, ok := ParseSpec(spec)
		if !ok {
			return
		}
		if th.Spec() != spec {
			t.Fatalf("ParseSpec(%q) spells %q", spec, th.Spec())
		}
		if len(th.Problems()) > 0 {
			return
		}
		css := th.CSS(Page)
		for _, bad := range []string{"<", "\\", "</style", "expression(", "javascript:"} {
			if strings.Contains(css, bad) {
				t.Fatalf("the stylesheet of %q holds %q:\n%s", spec, bad, css)
			}
		}
		if strings.Count(css, "{") != strings.Count(css, "}") || strings.Count(css, `"`)%2 != 0 {
			t.Fatalf("the stylesheet of %q is unbalanced:\n%s", spec, css)
		}
	})
}
