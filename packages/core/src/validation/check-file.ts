/**
 * Symfony's File and Image constraints on an upload: empty, too large, of a media type not allowed (judged from the
 * bytes), and for images the dimensions the header declares. A stored file (an update that sent none) is not checked
 * again: it passed when it was uploaded.
 */
import type { FileConstraintOptions, ImageConstraintOptions } from '../metadata/constraints.js';
import { factorizeSizes, parseFileSize } from '../files/file-size.js';
import { UploadedFile } from '../files/uploaded-file.js';
import { type Finding, formatMessage, MESSAGES } from './messages.js';

const quoted = (value: string): string => `"${value}"`;

function allows(mimeTypes: readonly string[], mimeType: string): boolean {
  return mimeTypes.some((allowed) =>
    allowed.endsWith('/*') ? mimeType.startsWith(allowed.slice(0, -1)) : allowed === mimeType,
  );
}

const say = (template: string, parameters: Record<string, unknown>, code: string): Finding => ({
  message: formatMessage(template, parameters),
  code,
});

/** The File checks (and Image's, with `image`): the first that fails, as Symfony stops at the first. */
export function checkFile(
  value: unknown,
  constraint: (FileConstraintOptions | ImageConstraintOptions) & { readonly kind: 'File' | 'Image' },
): Finding[] {
  if (!(value instanceof UploadedFile)) return [];
  const image = constraint.kind === 'Image';
  if (value.size === 0)
    return [say(constraint.disallowEmptyMessage ?? MESSAGES.emptyFile.message, {}, MESSAGES.emptyFile.code)];
  const limit = constraint.maxSize === undefined ? undefined : parseFileSize(constraint.maxSize);
  if (limit && value.size > limit.bytes) {
    const sizes = factorizeSizes(value.size, limit);
    return [
      say(
        constraint.maxSizeMessage ?? MESSAGES.fileTooLarge.message,
        { size: sizes.size, limit: sizes.limit, suffix: sizes.suffix },
        MESSAGES.fileTooLarge.code,
      ),
    ];
  }
  const mimeTypes = constraint.mimeTypes ?? (image ? ['image/*'] : undefined);
  if (mimeTypes && !allows(mimeTypes, value.mimeType)) {
    const definition = image ? MESSAGES.notAnImage : MESSAGES.invalidMimeType;
    return [
      say(
        constraint.mimeTypesMessage ?? definition.message,
        { type: quoted(value.mimeType), types: mimeTypes.map(quoted).join(', ') },
        definition.code,
      ),
    ];
  }
  return image ? checkDimensions(value, constraint as ImageConstraintOptions) : [];
}

function checkDimensions(value: UploadedFile, constraint: ImageConstraintOptions): Finding[] {
  const { minWidth, maxWidth, minHeight, maxHeight, maxPixels } = constraint;
  const limited = [minWidth, maxWidth, minHeight, maxHeight, maxPixels].some((limit) => limit !== undefined);
  if (!limited) return [];
  const { dimensions } = value;
  if (!dimensions) return [say(MESSAGES.imageSizeNotDetected.message, {}, MESSAGES.imageSizeNotDetected.code)];
  const { width, height } = dimensions;
  if (maxWidth !== undefined && width > maxWidth)
    return [say(MESSAGES.imageTooWide.message, { width, max_width: maxWidth }, MESSAGES.imageTooWide.code)];
  if (minWidth !== undefined && width < minWidth)
    return [say(MESSAGES.imageTooNarrow.message, { width, min_width: minWidth }, MESSAGES.imageTooNarrow.code)];
  if (maxHeight !== undefined && height > maxHeight)
    return [say(MESSAGES.imageTooHigh.message, { height, max_height: maxHeight }, MESSAGES.imageTooHigh.code)];
  if (minHeight !== undefined && height < minHeight)
    return [say(MESSAGES.imageTooLow.message, { height, min_height: minHeight }, MESSAGES.imageTooLow.code)];
  if (maxPixels !== undefined && width * height > maxPixels)
    return [
      say(
        MESSAGES.imageTooManyPixels.message,
        { pixels: width * height, max_pixels: maxPixels },
        MESSAGES.imageTooManyPixels.code,
      ),
    ];
  return [];
}
