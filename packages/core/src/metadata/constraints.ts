/**
 * Constraints, as API Platform users know them from Symfony: factories that return plain, frozen declarations, used
 * the same way in both declaration forms (`constraints: [NotBlank(), Length({ min: 3 })]` on a field or resource, or
 * `@Assert(NotBlank(), Length({ min: 3 }))` with decorators). Every constraint takes `groups` (default `['Default']`)
 * and a custom `message`.
 */

/** Options every constraint takes. */
export interface ConstraintOptions {
  /** The validation groups it belongs to (default `['Default']`). */
  readonly groups?: readonly string[];
  /** Replaces the default message; `{{ limit }}`, `{{ compared_value }}`, `{{ min }}`, `{{ max }}` are filled in. */
  readonly message?: string;
}

/** What a callback constraint gets to report violations. */
export interface CallbackContext {
  /** The whole new state of the item (its fields, relations as ids). */
  readonly object: Record<string, unknown>;
  /** The item as it was before this request (PUT, PATCH), or null. */
  readonly previousObject: Record<string, unknown> | null;
  /** The authenticated user, when access control is configured. */
  readonly user: unknown;
  /** Adds a violation, on the constraint's property by default or on `path` (relative to the item). */
  addViolation(message: string, options?: { readonly path?: string; readonly code?: string }): void;
}

/**
 * Symfony's File options (a field of type `file`). The message options replace Symfony's defaults; their
 * placeholders are Symfony's (`{{ size }}`, `{{ limit }}`, `{{ suffix }}`, `{{ type }}`, `{{ types }}`).
 */
export interface FileConstraintOptions {
  /**
   * The largest size: bytes (`2000000`), or a string with Symfony's suffixes, `k`/`M` (powers of 1000: `'2M'` is
   * 2,000,000 bytes) or `Ki`/`Mi` (powers of 1024). `The file is too large (2.5 MB). Allowed maximum size is 2 MB.`
   */
  readonly maxSize?: number | string;
  /**
   * The media types accepted, judged from the file's bytes (never the client's claim); `image/*` accepts any image.
   * `The mime type of the file is invalid ("text/plain"). Allowed mime types are "image/png", "image/jpeg".`
   */
  readonly mimeTypes?: readonly string[];
  /** Replaces `The file is too large ({{ size }} {{ suffix }}). Allowed maximum size is {{ limit }} {{ suffix }}.` */
  readonly maxSizeMessage?: string;
  /** Replaces the message of a media type not allowed (placeholders `{{ type }}`, `{{ types }}`). */
  readonly mimeTypesMessage?: string;
  /** `An empty file is not allowed.` */
  readonly disallowEmptyMessage?: string;
}

/**
 * Symfony's Image options: those of File (`mimeTypes` defaults to `image/*`, with the message
 * `This file is not a valid image.`), and the dimensions its header declares, read without decoding the image.
 */
export interface ImageConstraintOptions extends FileConstraintOptions {
  /** The least width in pixels. `The image width is too small (10px). Minimum width expected is 100px.` */
  readonly minWidth?: number;
  /** The largest width in pixels. `The image width is too big (100000px). Allowed maximum width is 4096px.` */
  readonly maxWidth?: number;
  /** The least height in pixels. `The image height is too small (10px). Minimum height expected is 100px.` */
  readonly minHeight?: number;
  /** The largest height in pixels. `The image height is too big (9000px). Allowed maximum height is 4096px.` */
  readonly maxHeight?: number;
  /** The most pixels (width × height): an image that would take gigabytes once decoded is refused by its header. */
  readonly maxPixels?: number;
}

/** What comparison and choice constraints compare with: a number, a string (also an ISO date) or a boolean. */
export type ComparedValue = number | string | boolean;

/** Every constraint, by kind. */
export type Constraint =
  | ({ readonly kind: 'NotBlank'; readonly allowNull?: boolean } & ConstraintOptions)
  | ({ readonly kind: 'NotNull' } & ConstraintOptions)
  | ({ readonly kind: 'Blank' } & ConstraintOptions)
  | ({ readonly kind: 'IsNull' } & ConstraintOptions)
  | ({
      readonly kind: 'Length';
      readonly min?: number;
      readonly max?: number;
      readonly exactly?: number;
    } & ConstraintOptions)
  | ({
      readonly kind: 'Count';
      readonly min?: number;
      readonly max?: number;
      readonly exactly?: number;
    } & ConstraintOptions)
  | ({ readonly kind: 'Range'; readonly min?: number | string; readonly max?: number | string } & ConstraintOptions)
  | ({ readonly kind: 'Positive' | 'PositiveOrZero' | 'Negative' | 'NegativeOrZero' } & ConstraintOptions)
  | ({
      readonly kind: 'LessThan' | 'LessThanOrEqual' | 'GreaterThan' | 'GreaterThanOrEqual' | 'EqualTo' | 'NotEqualTo';
      readonly value: ComparedValue;
    } & ConstraintOptions)
  | ({
      readonly kind: 'Choice';
      readonly choices: readonly ComparedValue[];
      readonly multiple?: boolean;
      readonly min?: number;
      readonly max?: number;
    } & ConstraintOptions)
  | ({ readonly kind: 'Email' | 'Uuid' | 'Date' | 'DateTime' } & ConstraintOptions)
  | ({ readonly kind: 'Url'; readonly protocols?: readonly string[] } & ConstraintOptions)
  | ({
      readonly kind: 'Regex';
      readonly pattern: string;
      readonly flags?: string;
      readonly match?: boolean;
    } & ConstraintOptions)
  | ({
      readonly kind: 'Unique';
      readonly fields?: readonly string[];
      readonly errorPath?: string;
      readonly ignoreCase?: boolean;
    } & ConstraintOptions)
  | ({ readonly kind: 'Valid' } & ConstraintOptions)
  | ({ readonly kind: 'UserPassword' } & ConstraintOptions)
  | ({ readonly kind: 'File' } & FileConstraintOptions & ConstraintOptions)
  | ({ readonly kind: 'Image' } & ImageConstraintOptions & ConstraintOptions)
  | ({
      readonly kind: 'Callback';
      readonly callback: (value: unknown, context: CallbackContext) => void | Promise<void>;
    } & ConstraintOptions);

/** The name of a constraint (`'NotBlank'`, `'Length'`, ...): the `kind` of a `Constraint`. */
export type ConstraintKind = Constraint['kind'];

/** The constraint declaration of one kind (some declarations share a shape between several kinds). */
type ConstraintOf<K extends ConstraintKind> = Constraint extends infer C
  ? C extends { kind: infer CK }
    ? K extends CK
      ? C & { readonly kind: K }
      : never
    : never
  : never;
type Options<K extends ConstraintKind> = Omit<ConstraintOf<K>, 'kind'>;

const make =
  <K extends ConstraintKind>(kind: K) =>
  (options: Options<K> = {} as Options<K>): ConstraintOf<K> =>
    Object.freeze({ kind, ...options }) as ConstraintOf<K>;

/** Not null, not `''`, not `[]`, not `false` (`allowNull` lets null through). `This value should not be blank.` */
export const NotBlank = make('NotBlank');
/** Not null. `This value should not be null.` */
export const NotNull = make('NotNull');
/** Null, `''` or `[]`. `This value should be blank.` */
export const Blank = make('Blank');
/** Null. `This value should be null.` */
export const IsNull = make('IsNull');
/**
 * String length in characters: `min`, `max` or `exactly`. `This value is too short. It should have 3 characters or
 * more.`
 */
export const Length = make('Length');
/** Number of elements of an array or to-many relation: `min`, `max` or `exactly`. */
export const Count = make('Count');
/** A number (or date) between `min` and `max`, either optional. `This value should be between 1 and 5.` */
export const Range = make('Range');
/** `> 0`. `This value should be positive.` */
export const Positive = make('Positive');
/** `>= 0`. `This value should be either positive or zero.` */
export const PositiveOrZero = make('PositiveOrZero');
/** `< 0`. `This value should be negative.` */
export const Negative = make('Negative');
/** `<= 0`. `This value should be either negative or zero.` */
export const NegativeOrZero = make('NegativeOrZero');
/** `< value`. `This value should be less than 10.` */
export const LessThan = make('LessThan');
/** `<= value`. `This value should be less than or equal to 10.` */
export const LessThanOrEqual = make('LessThanOrEqual');
/** `> value`. `This value should be greater than 5.` */
export const GreaterThan = make('GreaterThan');
/** `>= value`. `This value should be greater than or equal to 5.` */
export const GreaterThanOrEqual = make('GreaterThanOrEqual');
/** `=== value`. `This value should be equal to "x".` */
export const EqualTo = make('EqualTo');
/** `!== value`. `This value should not be equal to "x".` */
export const NotEqualTo = make('NotEqualTo');
/**
 * One of `choices` (or, with `multiple`, an array of them, `min`/`max` of them). `The value you selected is not a valid
 * choice.`
 */
export const Choice = make('Choice');
/** An e-mail address (HTML5 rules). `This value is not a valid email address.` */
export const Email = make('Email');
/** An absolute URL with one of `protocols` (default http, https). `This value is not a valid URL.` */
export const Url = make('Url');
/** An RFC 4122 / 9562 UUID. `This is not a valid UUID.` */
export const Uuid = make('Uuid');
/** A string matching `pattern` (or not, with `match: false`). `This value is not valid.` */
export const Regex = make('Regex');
/** A string holding a valid `YYYY-MM-DD` date (Symfony's Date). `This value is not a valid date.` */
export const DateString = make('Date');
/** A string holding a valid RFC 3339 date-time (Symfony's DateTime). `This value is not a valid datetime.` */
export const DateTimeString = make('DateTime');
/**
 * No other item has the same value (on a field) or the same combination of `fields` (on the resource), checked in
 * the database and backed by a unique index. `This value is already used.` `ignoreCase: true` compares text in lower
 * case (`Alice@Example.COM` is `alice@example.com`), with a unique index on `lower(column)`; it is the default on a
 * field that also carries `Email()`.
 */
export const Unique = make('Unique');
/** Validates the nested item written through this relation with its own constraints (paths like `author.name`). */
export const Valid = make('Valid');
/**
 * The value is the current user's password (checked against the stored hash), as Symfony's UserPassword: for a
 * password change that asks for the old one. `This value should be the user's current password.`
 */
export const UserPassword = make('UserPassword');
/**
 * A file field's upload: its size (`maxSize`), its media type judged from its bytes (`mimeTypes`), not empty.
 * `File({ maxSize: '2M', mimeTypes: ['image/png', 'image/jpeg'] })`.
 */
export const File = make('File');
/**
 * An image upload: File's checks (any `image/*` by default) and the dimensions its header declares (`maxWidth`,
 * `maxHeight`, `minWidth`, `minHeight`, `maxPixels`), never decoded. `This file is not a valid image.`
 */
export const Image = make('Image');
/** A function of yours that adds violations: `Callback((value, context) => { … context.addViolation('…') })`. */
export const Callback = (
  callback: (value: unknown, context: CallbackContext) => void | Promise<void>,
  options: ConstraintOptions = {},
) => Object.freeze({ kind: 'Callback' as const, callback, ...options });
