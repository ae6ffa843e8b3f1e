package api

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/theme"
)

// copier is a PictureCopier that names each copy as tenant's and records
// what it copied.
type copier struct{ copied []string }

func (c *copier) CopyPicture(_ context.Context, name, tenant string) (string, error) {
	c.copied = append(c.copied, name)
	return tenant + "-abcdefabcdef.png", nil
}

// TestDefinitionTheme: a survey's own theme travels in its definition and
// comes back on import; its background image, another tenant's, is
// copied; a theme whose colours fail is refused naming the pair; a
// survey without one exports none.
func TestDefinitionTheme(t *testing.T) {
	th := &theme.Theme{Primary: "#8a1c7c", Background: "#ffffff", Text: "#111111", Font: "serif", Corners: "round", Logo: "center", Image: "adatum-0123456789ab.png"}
	sv := &survey.Survey{Tenant: "adatum", Title: "T", Theme: th, Questions: []survey.Question{{ID: "q1", Text: "Q", Type: survey.SimpleText}}}
	raw, err := json.Marshal(DefinitionOf(sv))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"theme":{"primary":"#8a1c7c","background":"#ffffff","text":"#111111","font":"serif","corners":"round","logo":"center","image":"adatum-0123456789ab.png"}`) {
		t.Fatalf("definition's theme: %s", raw)
	}
	back, err := ParseDefinition("adatum", raw)
	if err != nil || back.Theme == nil || *back.Theme != *th {
		t.Fatalf("imported: %+v %v", back.Theme, err)
	}
	if _, err := ParseDefinition("contoso", raw); err == nil || !strings.Contains(err.(*survey.Error).Fields["theme.image"], "another organisation's") {
		t.Fatalf("another tenant's image without copying: %v", err)
	}
	c := &copier{}
	back, err = ImportDefinition(context.Background(), "contoso", raw, c)
	if err != nil || back.Theme.Image != "contoso-abcdefabcdef.png" || len(c.copied) != 1 || c.copied[0] != th.Image {
		t.Fatalf("imported into contoso: %+v %v, copied %v", back.Theme, err, c.copied)
	}

	bad := strings.Replace(string(raw), `"text":"#111111"`, `"text":"#777777"`, 1)
	if _, err := ParseDefinition("adatum", []byte(bad)); err == nil || !strings.Contains(err.(*survey.Error).Fields["theme.contrast"], "Text on the background: #777777 on #ffffff has a contrast of 4.48:1") {
		t.Fatalf("a failing theme: %v", err)
	}
	sv.Theme = nil
	raw, _ = json.Marshal(DefinitionOf(sv))
	if strings.Contains(string(raw), "theme") {
		t.Fatalf("definition of a survey without a theme names one: %s", raw)
	}
}
