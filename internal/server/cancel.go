package server

import (
	"net/http"

	"github.com/sidecarhq/sidecar/internal/protocol"
)

// handleCancel is POST /v1/cancel: kill the named command's process group;
// its own exec request then answers exit 130.
func (s *Server) handleCancel(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSONBody(w, r, 4096)
	if err != nil {
		return err
	}
	req, err := protocol.DecodeCancel(body)
	if err != nil {
		return err
	}
	if !s.running.cancel(req.RequestID, errCancelled) {
		return &apiError{status: http.StatusNotFound, code: protocol.CodeUnknownRequest,
			msg: "no running request has this request_id (it may have finished already)"}
	}
	writeJSON(w, http.StatusOK, protocol.CancelResponse{RequestID: req.RequestID, Cancelled: true})
	return nil
}
