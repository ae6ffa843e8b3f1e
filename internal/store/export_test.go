package store

import "time"

// SetWebhookClock sets the clock of a WebhookStore (tests only).
func SetWebhookClock(ws *WebhookStore, now func() time.Time) { ws.now = now }
