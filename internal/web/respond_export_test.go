package web

// CachedForms counts the survey forms s keeps rendered (respond_forms.go), for the
// tests of package web_test.
func CachedForms(s *Server) int { return s.forms.cache.Len() }
