@cap:patch
Feature: Patching aspects, as DataHub's SDK patch builders do
  DataHub's SDK changes part of an aspect with a JSON Patch (RFC 6902) instead of writing
  the aspect whole: its patch builders (DatasetPatchBuilder: add_tag, remove_tag, add_term,
  add_owner, remove_owner, add_custom_property, remove_custom_property,
  add_upstream_lineage...) make proposals with changeType PATCH, which go to Rest.li's
  POST /aspects?action=ingestProposalBatch, the patch as the aspect's JSON text, or, from
  DataHub 1.0.1 on (and with DataHubClient.entities.update), to
  PATCH /openapi/v3/entity/<entity type> as {"patch": [...]}.

  A patch applies to the aspect as it is, or to its default when there is none, through
  DataHub's template for the aspect: a list of tags, terms, owners or upstreams is keyed by
  each element's URN (owners by owner and ownership type), so "add /tags/<tag urn>" adds one
  tag whatever is there, and adding it twice keeps one; "remove /owners/<user urn>" takes
  the user's every ownership. Patching needs EDIT_ENTITY; a patch that cannot apply changes
  nothing.

  Background:
    Given Ann holds a personal access token

  @id:patch-01 @must @smoke
  Scenario Outline: A tag added with a patch through <path> joins the tags a dataset has
    Given the administrator has tagged a new dataset with a tag
    And Ann is granted EDIT_ENTITY
    When Ann adds another tag to the dataset with a patch through <path>
    Then the dataset's tags are the first tag and the new one, in that order

    Examples:
      | path    |
      | Rest.li |
      | OpenAPI |

  @id:patch-02 @must @core
  Scenario Outline: A tag removed with a patch through <path> leaves the dataset's other tags
    Given the administrator has tagged a new dataset with two tags
    And Ann is granted EDIT_ENTITY
    When Ann removes the first tag from the dataset with a patch through <path>
    Then the dataset's tags are the second tag alone

    Examples:
      | path    |
      | Rest.li |
      | OpenAPI |

  @id:patch-03 @must @core
  Scenario: A tag added with a patch to a dataset with no tags starts from none
    Given the administrator has written a new dataset with a description
    And Ann is granted EDIT_ENTITY
    When Ann adds a tag to the dataset with a patch through OpenAPI
    Then the dataset's tags are that tag alone
    And the dataset's description is unchanged

  @id:patch-04 @must @core
  Scenario: A tag the dataset has already, added again with a patch, is kept once
    Given the administrator has tagged a new dataset with a tag
    And Ann is granted EDIT_ENTITY
    When Ann adds the same tag to the dataset again with a patch through Rest.li
    Then the dataset's tags are that tag alone

  @id:patch-05 @must @core
  Scenario Outline: An owner added with a patch through <path> joins the owners, and one removed leaves every type of ownership
    Given the administrator has made Bob a technical owner and Mia a business owner of a new dataset
    And Ann is granted EDIT_ENTITY
    When Ann adds Kim as a data steward and removes Bob from the dataset's owners with a patch through <path>
    Then the dataset's owners are Mia as a business owner and Kim as a data steward

    Examples:
      | path    |
      | Rest.li |
      | OpenAPI |

  @id:patch-06 @must @core
  Scenario: Custom properties added and removed with a patch leave the others and the description
    Given the administrator has written a new dataset with two custom properties
    And Ann is granted EDIT_ENTITY
    When Ann adds a custom property and removes the first one with a patch through OpenAPI
    Then the dataset's custom properties are the second one and the new one
    And the dataset's description is unchanged

  @id:patch-07 @must @core
  Scenario: A glossary term added with a patch joins the dataset's terms
    Given the administrator has given a new dataset a glossary term
    And Ann is granted EDIT_ENTITY
    When Ann adds another glossary term to the dataset with a patch through Rest.li
    Then the dataset's glossary terms are the first term and the new one

  @id:patch-08 @must @core
  Scenario: An upstream added with a patch joins the dataset's lineage
    Given the administrator has given a new dataset an upstream dataset
    And Ann is granted EDIT_ENTITY
    When Ann adds another upstream to the dataset with a patch through OpenAPI
    Then the dataset's upstreams are the first one and the new one

  @id:patch-09 @must @core
  Scenario Outline: Someone granted <privilege> but not EDIT_ENTITY cannot patch a dataset through <path>
    Given the administrator has tagged a new dataset with a tag
    And Ann is granted <privilege>
    When Ann adds another tag to the dataset with a patch through <path>
    Then Ann is rejected as unauthorized

    Examples:
      | privilege        | path    |
      | DELETE_ENTITY    | Rest.li |
      | VIEW_ENTITY_PAGE | Rest.li |
      | DELETE_ENTITY    | OpenAPI |

  @id:patch-10 @must @core
  Scenario: EDIT_ENTITY on the dataset alone lets one patch it through Rest.li
    Given the administrator has tagged a new dataset with a tag
    And Ann is granted EDIT_ENTITY on the dataset alone
    When Ann adds another tag to the dataset with a patch through Rest.li
    Then the dataset's tags are the first tag and the new one, in that order

  @id:patch-11 @should @core
  Scenario: EDIT_ENTITY on the dataset alone lets one patch it through OpenAPI
    Given the administrator has tagged a new dataset with a tag
    And Ann is granted EDIT_ENTITY on the dataset alone
    When Ann adds another tag to the dataset with a patch through OpenAPI
    Then the dataset's tags are the first tag and the new one, in that order

  @id:patch-12 @must @core
  Scenario: EDIT_ENTITY on another dataset does not let one patch this one
    Given the administrator has tagged a new dataset with a tag
    And Ann is granted EDIT_ENTITY on another dataset alone
    When Ann adds another tag to the dataset with a patch through Rest.li
    Then Ann is rejected as unauthorized

  @id:patch-13 @must @core
  Scenario Outline: A patch without a token through <path> on the <tier> is refused
    Given the administrator has tagged a new dataset with a tag
    When someone without a token adds another tag to the dataset with a patch through <path> on the <tier>
    Then the request is refused as unauthenticated

    Examples:
      | path    | tier             |
      | Rest.li | metadata service |
      | Rest.li | frontend         |
      | OpenAPI | metadata service |

  @id:patch-14 @should @core
  Scenario Outline: A patch <flaw> is refused as a bad request and changes nothing
    Given the administrator has tagged a new dataset with a tag
    And Ann is granted EDIT_ENTITY
    When Ann sends a patch of the dataset's tags <flaw>
    Then the answer is a refusal of a bad request

    Examples:
      | flaw                                       |
      | with an operation JSON Patch does not have |
      | that is not a list of operations           |
      | whose path does not start with a slash     |
      | through OpenAPI without its patch          |

  @id:patch-15 @should @core
  Scenario: Patches that each add a tag to one dataset, sent at once, all land
    Given the administrator has tagged a new dataset with a tag
    And Ann is granted EDIT_ENTITY
    When Ann sends eight patches at once, each adding a tag of its own to the dataset
    Then the dataset holds the first tag and all eight new ones
