package mail

import "bytes"

// Render writes the message s would send for m, or returns the error.
func (s *Sender) Render(m Message) ([]byte, error) {
	msg, _, err := s.build(m)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	_, err = msg.WriteTo(&b)
	return b.Bytes(), err
}
