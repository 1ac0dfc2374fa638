package store

import "encoding/json"

// grantJSON is the stored form of a grant, kept apart from Grant so the
// column format does not follow Go field names. Every backend stores it
// the same way, so a token copied between stores keeps its grants.
type grantJSON struct {
	Pattern string `json:"pattern"`
	Level   Level  `json:"level"`
}

// EncodeGrants returns grants in their stored form, a JSON array.
func EncodeGrants(grants []Grant) (string, error) {
	out := make([]grantJSON, len(grants))
	for i, g := range grants {
		out[i] = grantJSON(g)
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// DecodeGrants parses the stored form EncodeGrants wrote.
func DecodeGrants(stored []byte) ([]Grant, error) {
	var in []grantJSON
	if err := json.Unmarshal(stored, &in); err != nil {
		return nil, err
	}
	grants := make([]Grant, len(in))
	for i, g := range in {
		grants[i] = Grant(g)
	}
	return grants, nil
}
