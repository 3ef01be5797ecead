import { useEffect, useRef, useState } from 'react';

/** Spec section 5/8: a camera that cannot be opened or read. */
export const WEBCAM_FAILED = 'Error validating webcam image.';

/**
 * 'Use webcam': asks for the camera (getUserMedia), shows it live and captures one frame as a PNG file.
 * A device failure (no camera, permission refused, nothing drawn) reports the spec's message.
 */
export function WebcamCapture({
  disabled,
  onCapture,
  onError,
}: {
  disabled?: boolean;
  onCapture(file: File): void;
  onError(message: string): void;
}) {
  const video = useRef<HTMLVideoElement | null>(null);
  const [stream, setStream] = useState<MediaStream | null>(null);

  // The camera is released when capturing ends and when the tab goes away.
  useEffect(() => {
    if (!stream) return;
    if (video.current) {
      video.current.srcObject = stream;
      void video.current.play?.()?.catch(() => undefined);
    }
    return () => stream.getTracks().forEach((track) => track.stop());
  }, [stream]);

  const open = async () => {
    try {
      if (!navigator.mediaDevices?.getUserMedia) throw new Error('no camera API');
      setStream(await navigator.mediaDevices.getUserMedia({ video: true, audio: false }));
    } catch {
      onError(WEBCAM_FAILED);
    }
  };

  const capture = () => {
    const frame = video.current;
    const width = frame?.videoWidth ?? 0;
    const height = frame?.videoHeight ?? 0;
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const context = width && height ? canvas.getContext('2d') : null;
    if (!frame || !context) {
      onError(WEBCAM_FAILED);
      return;
    }
    context.drawImage(frame, 0, 0, width, height);
    canvas.toBlob((blob) => {
      setStream(null);
      if (!blob) onError(WEBCAM_FAILED);
      else onCapture(new File([blob], 'webcam-capture.png', { type: 'image/png' }));
    }, 'image/png');
  };

  if (!stream) {
    return (
      <button type="button" className="qs-button" disabled={disabled} onClick={() => void open()}>
        Use webcam
      </button>
    );
  }
  return (
    <div className="bio-webcam">
      <video ref={video} muted playsInline aria-label="Webcam preview" />
      <div className="bio-row">
        <button type="button" className="qs-button qs-button--primary" onClick={capture}>
          Capture
        </button>
        <button type="button" className="qs-button" onClick={() => setStream(null)}>
          Close webcam
        </button>
      </div>
    </div>
  );
}
