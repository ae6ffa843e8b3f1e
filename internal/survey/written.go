package survey

// Written is the text a respondent wrote in a stored answer to q, which the
// analysis page lists: the answer itself for a kind whose answers are
// texts (Settings().Text; a kind whose answer is several texts says how
// they read as one, its written method), the "Other (please specify)"
// text for a kind with Other; "" for anything else, and when the
// respondent wrote none.
func Written(q Question, stored string) string {
	k, ok := KindOf(q.Type)
	if !ok || stored == "" {
		return ""
	}
	if w, ok := k.(interface{ written(Question, string) string }); ok {
		return w.written(q, stored)
	}
	switch s := k.Settings(); {
	case s.Text:
		return k.form(q, stored).Get("")
	case s.Other:
		return k.form(q, stored).Get("other")
	}
	return ""
}

// HasWritten reports whether answers to q may hold texts that Written
// returns.
func HasWritten(q Question) bool {
	k, ok := KindOf(q.Type)
	if !ok {
		return false
	}
	s := k.Settings()
	return s.Text || s.Other && q.Other
}
