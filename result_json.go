package applypatch

import "encoding/json"

// UnmarshalJSON decodes a FileResult, taking the destination of a move from "movePath" or
// from "move-path", the key earlier versions wrote.
func (f *FileResult) UnmarshalJSON(b []byte) error {
	type plain FileResult
	var v struct {
		plain
		Legacy string `json:"move-path"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = FileResult(v.plain)
	if f.MovePath == "" {
		f.MovePath = v.Legacy
	}
	return nil
}
