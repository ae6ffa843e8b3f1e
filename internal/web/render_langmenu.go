package web

import (
	"html/template"
	"time"

	"github.com/surveys-dev/surveys/internal/lrucache"
)

// menus keeps the respondent pages' language menus rendered
// (templates/partials/langmenu.html): the menu of links is the same for
// every page of one address in one language, the buttons of the menu
// inside a form the same in one language, so that a page rendered again
// costs a lookup instead of the menu's six languages' actions (each an
// escaper called by reflection, and each link's query encoded). The
// menus are rendered by html/template, as the pages are, in the same
// context (the text of an element); the golden files of
// TestSurveyPageGolden check them byte for byte.
//
// A menu whose address has a query (a link's hidden values, a page shown
// again from its sealed state, the thank-you page's recalled answers) is
// the respondent's own: it is rendered for the request, never kept.
type menus struct {
	t     *template.Template // langmenu.html's templates
	cache *lrucache.Cache[menuKey, template.HTML]
}

// menuKey is a menu in a language: of the links to the page at path, or
// (buttons) of the buttons of a form.
type menuKey struct {
	lang, path string
	buttons    bool
}

// Bounds of the menus kept: one per language and address of a survey's
// pages (its form, thank-you page, results), or per language for the
// buttons.
const (
	maxMenus     = 5000
	maxMenuBytes = 8 << 20
	menuTTL      = 10 * time.Minute
)

func newMenus(t *template.Template) menus {
	return menus{t: t, cache: lrucache.New(maxMenus, maxMenuBytes, menuTTL, func(k menuKey, h template.HTML) int64 {
		return int64(len(k.lang) + len(k.path) + len(h) + 64)
	})}
}

// menuPage is a respondent page: it has a language menu.
type menuPage interface{ reader() respondent }

// reader is the page's respondent (menuPage).
func (p respondent) reader() respondent { return p }

// langMenu is the page's menu of links to itself in each language
// (langmenu-nav).
func (v *views) langMenu(p menuPage) (template.HTML, error) {
	return v.menus.get(p.reader(), "langmenu-nav", false)
}

// langButtons is the page's form's buttons that show it in each language
// (langbuttons-group).
func (v *views) langButtons(p menuPage) (template.HTML, error) {
	return v.menus.get(p.reader(), "langbuttons-group", true)
}

func (m *menus) get(r respondent, name string, buttons bool) (template.HTML, error) {
	keep := buttons || r.here.RawQuery == ""
	key := menuKey{lang: r.L.Tag(), buttons: buttons}
	if !buttons {
		key.path = r.here.Path
	}
	if keep {
		if h, ok := m.cache.Get(key); ok {
			return h, nil
		}
	}
	h, err := executeHTML(m.t, name, r)
	if err != nil {
		return "", err
	}
	if keep {
		m.cache.Add(key, h)
	}
	return h, nil
}
