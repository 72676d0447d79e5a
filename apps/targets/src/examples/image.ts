import sharp from "sharp";

/** Side of the bundled source image; resizes go both down (200×200) and near it (1000×1000). */
export const SOURCE_SIZE = 1200;

let source: Promise<Buffer> | undefined;

/**
 * The heavy example's source image: a 1200×1200 RGBA PNG drawn from a formula, so every start
 * produces the same bytes without a binary file in the repository. Rings, a gradient and an
 * angular wave keep it from compressing to nothing, so decoding it costs real CPU per request.
 */
export function sourceImage(): Promise<Buffer> {
  source ??= drawSource();
  return source;
}

async function drawSource(): Promise<Buffer> {
  const size = SOURCE_SIZE;
  const pixels = Buffer.alloc(size * size * 4);
  const centre = size / 2;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const offset = (y * size + x) * 4;
      const dx = x - centre;
      const dy = y - centre;
      const radius = Math.hypot(dx, dy);
      if (radius >= size * 0.45) continue; // transparent outside the disc
      const ring = Math.floor(radius / 40) % 2 === 1;
      pixels[offset] = ring ? 255 : 30 + Math.floor((x * 200) / size);
      pixels[offset + 1] = Math.floor(128 + 100 * Math.sin(Math.atan2(dy, dx) * 6 + radius / 30));
      pixels[offset + 2] = Math.floor((y * 255) / size);
      pixels[offset + 3] = 255;
    }
  }
  return sharp(pixels, { raw: { width: size, height: size, channels: 4 } })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

export async function resizeSource(width: number, height: number, compressionLevel: number): Promise<Buffer> {
  return sharp(await sourceImage())
    .resize(width, height, { fit: "fill" })
    .png({ compressionLevel })
    .toBuffer();
}

const DEFAULT_THREADS = sharp.concurrency();

/** libvips threads per operation; 0 restores the default. */
export function setImageThreads(threads: number): void {
  sharp.concurrency(threads === 0 ? DEFAULT_THREADS : threads);
}
